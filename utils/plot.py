#!/usr/bin/python3
"""Turn an example's JSON results into the PNG its documentation shows.

Usage: utils/plot.py KIND RESULTS.json OUT.png
KIND names the example: collective-validation, railonly-cost, topoopt-cluster,
checkmate-recovery, training-cluster, compression-utility, railonly-llm; or a
monitor of any example run with --linkMonitor / --messages: link-utilization,
queue-depth, message-times (they plot the files the JSON names under "outputs").
"""
import json
import sys


def collective_validation(doc, out, plt):
    rows = doc["rows"]
    series = {}
    for r in rows:
        key = f'{r["fabric"]} {r["collective"]}/{r["algorithm"]}'
        series.setdefault(key, []).append(r)
    fig, (top, bottom) = plt.subplots(2, 1, figsize=(8, 8), sharex=True)
    for key, pts in sorted(series.items()):
        pts.sort(key=lambda r: r["bytes"])
        x = [r["bytes"] for r in pts]
        line, = top.plot(x, [r["simulated_s"] for r in pts], "o-", label=f"{key} packet-level")
        top.plot(x, [r["analytical_s"] for r in pts], "x--", color=line.get_color(),
                 label=f"{key} alpha-beta")
        bottom.plot(x, [100 * r["error"] for r in pts], "o-", color=line.get_color(), label=key)
    top.set_xscale("log", base=2)
    top.set_yscale("log")
    top.set_ylabel("completion time (s)")
    top.legend(fontsize=7)
    top.grid(True, which="both", alpha=0.3)
    bottom.set_xlabel("bytes per rank")
    bottom.set_ylabel("signed error (%)\n(sim - model) / sim")
    bottom.axhline(0, color="black", linewidth=0.8)
    bottom.grid(True, alpha=0.3)
    bottom.legend(fontsize=7)
    fig.suptitle("Collectives: packet-level vs alpha-beta twin")
    fig.tight_layout()
    fig.savefig(out, dpi=120)


def topoopt_cluster(doc, out, plt):
    rows = [r for r in doc["rows"] if r["fabric"] != "topoopt-ocs"]
    models = []
    fabrics = []
    for r in rows:
        if r["model"] not in models:
            models.append(r["model"])
        if r["fabric"] not in fabrics:
            fabrics.append(r["fabric"])
    by = {(r["model"], r["fabric"]): r for r in rows}
    fig, ax = plt.subplots(figsize=(9, 4.5))
    width = 0.8 / len(fabrics)
    for k, f in enumerate(fabrics):
        xs, ys, ya = [], [], []
        for i, m in enumerate(models):
            if (m, f) not in by or (m, "ideal") not in by:
                continue
            ideal = by[(m, "ideal")]["iteration_s"]
            xs.append(i + (k - (len(fabrics) - 1) / 2) * width)
            ys.append(by[(m, f)]["iteration_s"] / ideal)
            ya.append(by[(m, f)]["analytical_iteration_s"] / ideal)
        bars = ax.bar(xs, ys, width, label=f + " (packet level)")
        ax.plot(xs, ya, "k_", markersize=14, markeredgewidth=2,
                label="analytical" if k == 0 else None)
        for x, y in zip(xs, ys):
            ax.text(x, y, "%.2f" % y, ha="center", va="bottom", fontsize=7)
    ax.set_xticks(range(len(models)))
    ax.set_xticklabels(models)
    ax.axhline(1, color="black", linewidth=0.8)
    ax.set_ylabel("iteration time / ideal switch")
    ax.legend(fontsize=8)
    ax.grid(True, axis="y", alpha=0.3)
    fig.suptitle("TopoOpt vs similar-cost fat-tree, ideal switch and expander")
    fig.tight_layout()
    fig.savefig(out, dpi=120)


def railonly_cost(doc, out, plt):
    """Cost and power reduction of rail-only vs rail-optimized over HB-domain size."""
    rows = [r for r in doc["rows"] if r["design"] == "rail-only"]
    fig, (left, right) = plt.subplots(1, 2, figsize=(10, 4), sharey=True)
    for gpus in sorted({r["gpus"] for r in rows}):
        pts = sorted((r for r in rows if r["gpus"] == gpus), key=lambda r: r["hb_domain"])
        x = [r["hb_domain"] for r in pts]
        left.plot(x, [100 * r["cost_reduction"] for r in pts], "o-", label=f"N = {gpus}")
        right.plot(x, [100 * r["power_reduction"] for r in pts], "o-", label=f"N = {gpus}")
    for ax, what, lo, hi in ((left, "cost", 38, 77), (right, "power", 37, 75)):
        ax.axhspan(lo, hi, color="grey", alpha=0.15, label=f"paper {lo}-{hi} %")
        ax.set_xscale("log", base=2)
        ax.set_xlabel("HB domain size K (GPUs)")
        ax.set_title(f"network {what} reduction vs rail-optimized")
        ax.grid(True, which="both", alpha=0.3)
    left.set_ylabel("reduction (%)")
    left.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(out, dpi=120)


def checkmate_recovery(doc, out, plt):
    """Checkpoint interval, repeated work after the failure and throughput overhead
    per scheme (mode=all), and Checkmate's iteration times with commit lag."""
    modes = doc["modes"]
    names = [m for m in ("checkmate", "gemini", "checkfreq", "none") if m in modes]
    fig, axes = plt.subplots(1, 3, figsize=(12, 4))
    interval = [modes[m]["checkpoint_interval_iterations"] or 0 for m in names]
    repeated = [modes[m]["repeated_iterations_after_failure"] or 0 for m in names]
    overhead = [100 * modes[m]["throughput_overhead"] for m in names]
    colors = ["tab:green", "tab:blue", "tab:orange", "tab:gray"][: len(names)]
    for ax, values, title in (
        (axes[0], interval, "checkpoint interval (iterations)"),
        (axes[1], repeated, "repeated iterations after the failure"),
        (axes[2], overhead, "throughput overhead vs none (%)"),
    ):
        bars = ax.bar(names, values, color=colors)
        ax.bar_label(bars, fmt="%.3g")
        ax.set_title(title, fontsize=10)
        ax.grid(True, axis="y", alpha=0.3)
    s = doc["summary"]
    fig.suptitle(
        f'{s["parameters"]} parameters, failure at iteration {s.get("fail_at", "-")}; '
        f'shadow bit-identical: {s["shadow_matches_workers"]}',
        fontsize=10,
    )
    fig.tight_layout()
    fig.savefig(out, dpi=120)


def iteration_bars(ax, rows, names, model_label):
    """Packet-level and analytical iteration time side by side, one pair per row."""
    xs = list(range(len(rows)))
    w = 0.38
    ax.bar([x - w / 2 for x in xs], [1e3 * r["iteration_s"] for r in rows], w,
           label="packet-level")
    ax.bar([x + w / 2 for x in xs], [1e3 * r["analytical_iteration_s"] for r in rows], w,
           label=model_label)
    ax.set_xticks(xs)
    ax.set_xticklabels(names, fontsize=8)
    ax.set_ylabel("iteration time (ms)")
    ax.legend(fontsize=8)
    ax.set_title("iteration time")


def link_class_bars(ax, rows, names):
    """Wire bytes stacked by link class, one bar per row."""
    xs = list(range(len(rows)))
    classes = []
    for r in rows:
        for k in r.get("bytes_by_link_class", {}):
            if k not in classes:
                classes.append(k)
    bottom = [0.0] * len(rows)
    for k in classes:
        v = [r.get("bytes_by_link_class", {}).get(k, 0) / 1e6 for r in rows]
        ax.bar(xs, v, 0.6, bottom=bottom, label=k)
        bottom = [p + q for p, q in zip(bottom, v)]
    ax.set_xticks(xs)
    ax.set_xticklabels(names, fontsize=8)
    ax.set_ylabel("wire bytes per run (MB)")
    ax.legend(fontsize=7)
    ax.set_title("bytes by link class")


def railonly_llm(doc, out, plt):
    """GPT/MoE iteration on rail-only, rail-optimized and fat-tree (and failures):
    packet-level vs closed form, and where the bytes went."""
    rows = doc["rows"]
    names = [r["fabric"] + ("" if r.get("failure", "none") == "none" else "\n" + r["failure"])
             for r in rows]
    fig, (a, b) = plt.subplots(1, 2, figsize=(11, 4.2))
    iteration_bars(a, rows, names, "Megatron closed form")
    link_class_bars(b, rows, names)
    r0 = rows[0]
    fig.suptitle(f'{r0.get("model", "")}: {r0.get("gpus", "")} GPUs, TP {r0.get("tp", "")} '
                 f'PP {r0.get("pp", "")} DP {r0.get("dp", "")}')
    fig.tight_layout()
    fig.savefig(out, dpi=120)


def training_cluster(doc, out, plt):
    """One job on each fabric: iteration time (packet-level and alpha-beta), network
    cost and power, and wire bytes by link class."""
    rows = doc["rows"]
    names = [r["fabric"] for r in rows]
    xs = list(range(len(rows)))
    fig, (a, b, c) = plt.subplots(1, 3, figsize=(13, 4.2))
    iteration_bars(a, rows, names, "alpha-beta twin")
    w = 0.38
    b.bar([x - w / 2 for x in xs], [r["cost_usd"] / 1e3 for r in rows], w, label="cost (k USD)")
    b2 = b.twinx()
    b2.bar([x + w / 2 for x in xs], [r["power_w"] for r in rows], w, color="tab:red",
           label="power (W)")
    b.set_xticks(xs)
    b.set_xticklabels(names)
    b.set_ylabel("network cost (k USD)")
    b2.set_ylabel("network power (W)", color="tab:red")
    b.set_title("cost (blue) and power (red), rail table")
    link_class_bars(c, rows, names)
    search = doc.get("search", {})
    fig.suptitle(f'{search.get("model", "")} x{search.get("scale", "")} on '
                 f'{rows[0].get("gpus", "") if rows else ""} GPUs')
    fig.tight_layout()
    fig.savefig(out, dpi=120)


def compression_utility(doc, out, plt):
    """Time to target accuracy vs link bandwidth per scheme (left), and the same
    relative to the BF16 baseline (middle) and to FP32 (right, labelled)."""
    rows = doc["rows"]
    schemes = []
    for r in rows:
        if r["scheme"] not in schemes:
            schemes.append(r["scheme"])
    fig, axes = plt.subplots(1, 3, figsize=(14, 4))
    for s in schemes:
        pts = [r for r in rows if r["scheme"] == s and r["time_to_target_s"] is not None]
        bw = [r["bandwidth_gbps"] for r in pts]
        style = "k--" if s == "bf16" else (":" if s == "fp32" else "-")
        axes[0].plot(bw, [1e3 * r["time_to_target_s"] for r in pts], style, marker="o", label=s)
        for ax, key in ((axes[1], "tta_vs_bf16"), (axes[2], "tta_vs_fp32")):
            q = [r for r in pts if r.get(key) is not None]
            ax.plot([r["bandwidth_gbps"] for r in q], [r[key] for r in q], style, marker="o",
                    label=s)
    axes[0].set_ylabel("time to target accuracy (ms, simulated)")
    axes[1].set_ylabel("TTA / TTA(BF16)   (< 1: compression helps)")
    axes[2].set_ylabel("TTA / TTA(FP32)   (FP32 baseline: flattering)")
    for ax in axes:
        ax.set_xscale("log")
        ax.set_xlabel("link bandwidth (Gb/s)")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=8)
    for ax in axes[1:]:
        ax.axhline(1.0, color="gray", lw=1)
    r0 = rows[0]
    fig.suptitle(f'{r0["workers"]} workers, {r0["parameters"]} parameters, packet-level '
                 f'ideal switch, real training', fontsize=10)
    fig.tight_layout()
    fig.savefig(out, dpi=120)


def monitor_files(doc, kind):
    """The monitor CSVs a results document names (outputs.<kind>), read as dicts."""
    import csv
    files = doc.get("outputs", {}).get(kind, [])
    if not files:
        raise SystemExit(f"error: the results name no {kind} file; run the example "
                         f"with --{'linkMonitor' if kind == 'link_monitor' else kind}=FILE")
    out = []
    for name in files:
        with open(name) as f:
            out.append((name, list(csv.DictReader(f))))
    return out


def link_series(rows, column, reduce):
    """time (us) and per-class values of a link monitor column, per-link rows reduced."""
    per_class = {}
    for r in rows:
        per_class.setdefault(r["link_class"], {}).setdefault(float(r["time_us"]), []).append(
            float(r[column]))
    return {c: (sorted(v), [reduce(v[t]) for t in sorted(v)]) for c, v in per_class.items()}


def link_monitor_plot(doc, out, plt, column, per_link_column, reduce, ylabel):
    files = monitor_files(doc, "link_monitor")
    fig, axes = plt.subplots(len(files), 1, figsize=(8, 2.6 * len(files)), squeeze=False)
    for ax, (name, rows) in zip(axes[:, 0], files):
        per_link = rows and "link" in rows[0]
        for cls, (t, v) in sorted(link_series(rows, per_link_column if per_link else column,
                                              reduce).items()):
            ax.step(t, v, where="pre", lw=1, label=cls)  # a row holds over its interval
        ax.set_title(name.split("/")[-1], fontsize=9)
        ax.set_ylabel(ylabel)
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize=8)
    axes[-1, 0].set_xlabel("simulated time (us)")
    fig.tight_layout()
    fig.savefig(out, dpi=120)


def link_utilization(doc, out, plt):
    link_monitor_plot(doc, out, plt, "utilization", "utilization",
                      lambda v: sum(v) / len(v), "mean utilization per class")


def queue_depth(doc, out, plt):
    link_monitor_plot(doc, out, plt, "max_queue_packets", "queue_packets", max,
                      "deepest queue (packets)")


def message_times(doc, out, plt):
    files = monitor_files(doc, "messages")
    fig, ax = plt.subplots(figsize=(8, 3.2))
    for name, rows in files:
        ax.scatter([float(r["end_us"]) for r in rows], [float(r["duration_us"]) for r in rows],
                   s=4, label=name.split("/")[-1])
    ax.set_xlabel("delivered at (simulated us)")
    ax.set_ylabel("message completion time (us)")
    ax.set_yscale("log")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(out, dpi=120)


PLOTS = {
    "compression-utility": compression_utility,
    "collective-validation": collective_validation,
    "railonly-cost": railonly_cost,
    "topoopt-cluster": topoopt_cluster,
    "checkmate-recovery": checkmate_recovery,
    "training-cluster": training_cluster,
    "railonly-llm": railonly_llm,
    "link-utilization": link_utilization,
    "queue-depth": queue_depth,
    "message-times": message_times,
}


def main(argv):
    if len(argv) != 4 or argv[1] not in PLOTS:
        sys.stderr.write("error: usage: plot.py {%s} RESULTS.json OUT.png\n" % "|".join(PLOTS))
        return 2
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        sys.stderr.write("plot: matplotlib is not installed (utils/setup.sh installs it); no PNG\n")
        return 3
    try:
        with open(argv[2]) as f:
            doc = json.load(f)
    except (OSError, ValueError) as e:
        sys.stderr.write(f"error: cannot read {argv[2]}: {e}\n")
        return 1
    PLOTS[argv[1]](doc, argv[3], plt)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
