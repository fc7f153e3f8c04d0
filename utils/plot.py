#!/usr/bin/python3
"""Turn an example's JSON results into the PNG its documentation shows.

Usage: utils/plot.py KIND RESULTS.json OUT.png
       utils/plot.py sweep DIR/merged.csv OUT.png [--x COL] [--y COL] [--over COL]
                     [--by COL,...] [--spread minmax|std]
KIND names the example: collective-validation, railonly-cost, topoopt-cluster,
checkmate-recovery, training-cluster, compression-utility, railonly-llm; a monitor of
any example run with --linkMonitor / --messages: link-utilization, queue-depth,
message-times (they plot the files the JSON names under "outputs"); or sweep, the
merged.csv of utils/sweep: the mean of a value over the seeds of each grid point
(--over, default point.RngRun), with its spread.

Input it cannot draw (a document of another kind, no rows, a field missing) is one
line "error: <what, how to fix>" on stderr and exit 1; titles say what the file holds.
"""
import csv
import json
import math
import re
import sys


class PlotError(Exception):
    """Input that cannot be drawn: main prints "error: FILE: <message>" and exits 1."""


def need_rows(doc, fields, rows=None):
    """The rows (doc["rows"] unless given); each must have every field, not null."""
    rows = doc.get("rows") if rows is None else rows
    if not isinstance(rows, list) or not rows:
        raise PlotError("the document has no rows to plot; re-run the example (did it fail?)")
    for i, r in enumerate(rows):
        missing = [f for f in fields if not isinstance(r, dict) or r.get(f) is None]
        if missing:
            label = r.get("fabric", r.get("case")) if isinstance(r, dict) else None
            what = f" ({label})" if label is not None else ""
            raise PlotError(f"row {i}{what} has no {', '.join(missing)}, which this plot needs; "
                            "plot the output of a packet-level run of the example it is for")
    return rows


def listing(values):
    """Distinct values in first-seen order, joined with commas."""
    seen = []
    for v in values:
        if v not in seen:
            seen.append(v)
    return ", ".join(str(v) for v in seen)


def collective_validation(doc, out, plt):
    rows = need_rows(doc, ["fabric", "collective", "algorithm", "bytes", "analytical_s"])
    if all(r.get("simulated_s") is None for r in rows):
        raise PlotError("no row has a packet-level time (simulated_s): a --level=flow run; "
                        "the plot compares packet level with the twin, run at --level=packet")
    rows = need_rows(doc, ["simulated_s", "error"], rows)
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
    fig.suptitle(f'{listing(r["collective"] + "/" + r["algorithm"] for r in rows)} on '
                 f'{listing(r["fabric"] for r in rows)}, {listing(r.get("ranks", "?") for r in rows)}'
                 " ranks: packet level vs alpha-beta twin")
    fig.tight_layout()
    fig.savefig(out, dpi=120)


def topoopt_cluster(doc, out, plt):
    rows = need_rows(doc, ["fabric", "model"])
    rows = [r for r in rows if r["fabric"] != "topoopt-ocs"]
    if not rows:
        raise PlotError("only topoopt-ocs rows: the plot compares fabrics with the ideal switch; "
                        "run topoopt-cluster with --fabrics=topoopt,ideal (the --ocs row is "
                        "left out of this plot)")
    rows = need_rows(doc, ["iteration_s", "analytical_iteration_s"], rows)
    lacking = [m for m in dict.fromkeys(r["model"] for r in rows)
               if not any(r["model"] == m and r["fabric"] == "ideal" for r in rows)]
    if lacking:
        raise PlotError(f"no ideal-switch row for {', '.join(lacking)}: the plot shows iteration "
                        "time relative to the ideal switch; add ideal to --fabrics "
                        "(e.g. --fabrics=topoopt,fattree,ideal)")
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
    rate = listing(f'{r["per_server_gbps"]:g}' for r in rows
                   if r["fabric"] == "ideal" and isinstance(r.get("per_server_gbps"), (int, float)))
    fig.suptitle(f"{', '.join(models)}: {' vs '.join(fabrics)}"
                 + (f" (ideal switch: {rate} Gb/s per server)" if rate else ""))
    fig.tight_layout()
    fig.savefig(out, dpi=120)


def railonly_cost(doc, out, plt):
    """Cost and power reduction of rail-only vs rail-optimized over HB-domain size."""
    rows = need_rows(doc, ["design", "gpus", "hb_domain"])
    rows = [r for r in rows if r["design"] == "rail-only"]
    if not rows:
        raise PlotError("no rail-only rows: the plot shows rail-only's reduction against "
                        "rail-optimized; run railonly-cost with its default designs")
    rows = need_rows(doc, ["cost_reduction", "power_reduction"], rows)
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
    radix = listing(r["radix"] for r in rows if "radix" in r)
    fig.suptitle(f'Rail-only vs rail-optimized: {listing(sorted(r["gpus"] for r in rows))} GPUs'
                 + (f", switch radix {radix}" if radix else ""), fontsize=10)
    fig.tight_layout()
    fig.savefig(out, dpi=120)


def checkmate_recovery(doc, out, plt):
    """Checkpoint interval, repeated work after the failure and throughput overhead
    per scheme (mode=all), and Checkmate's iteration times with commit lag."""
    modes = doc.get("modes")
    if not isinstance(modes, dict) or not isinstance(doc.get("summary"), dict):
        raise PlotError("no \"modes\" and \"summary\": the plot compares every scheme; "
                        "run checkmate-recovery with --mode=all")
    names = [m for m in ("checkmate", "gemini", "checkfreq", "none") if m in modes]
    if not names:
        raise PlotError("\"modes\" has none of checkmate, gemini, checkfreq, none; "
                        "run checkmate-recovery with --mode=all")
    need_rows(doc, ["throughput_overhead"], [modes[m] for m in names])
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
    rows = need_rows(doc, ["fabric", "iteration_s", "analytical_iteration_s"])
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
    rows = need_rows(doc, ["fabric", "iteration_s", "analytical_iteration_s", "cost_usd",
                           "power_w"])
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
    rows = need_rows(doc, ["scheme", "bandwidth_gbps", "workers", "parameters"])
    if all(r.get("time_to_target_s") is None for r in rows):
        raise PlotError("no row reached the target accuracy (time_to_target_s is null in "
                        "every row): lower --targetAccuracy or train longer (--iterations)")
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


# Seed flags a sweep averages over when --over does not name one (ns-3's RngRun first).
SEED_COLUMNS = ("point.RngRun", "point.RngSeed", "point.seed", "point.run")
# What a sweep plots when --y does not say: the first of these the rows have.
VALUE_COLUMNS = ("simulated_s", "iteration_s", "time_to_target_s", "completion_s",
                 "cost_reduction", "busbw_gbps")
# Row columns that tell rows of one point apart (one row per fabric, scheme, ...).
CASE_COLUMNS = ("case", "fabric", "scheme", "design", "mode", "model")
PREFIXES = {"": 1, "k": 1e3, "K": 1e3, "M": 1e6, "G": 1e9, "T": 1e12, "Ki": 2 ** 10,
            "Mi": 2 ** 20, "Gi": 2 ** 30, "Ti": 2 ** 40, "n": 1e-9, "u": 1e-6, "m": 1e-3}
QUANTITY = re.compile(r"^([+-]?[0-9.]+(?:[eE][+-]?[0-9]+)?)\s*(Ki|Mi|Gi|Ti|[kKMGTnum])?(B|bps|b|s)?$")


def quantity(text):
    """A grid value as a number: 4096, 1.5, 64KiB, 100Gbps, 10us; None if it is not one."""
    m = QUANTITY.match(text.strip())
    if not m or (m.group(2) and not m.group(3) and m.group(2) in ("n", "u", "m")):
        return None
    try:
        return float(m.group(1)) * PREFIXES[m.group(2) or ""]
    except ValueError:
        return None


def read_sweep(path):
    """merged.csv of utils/sweep: (columns, rows as dicts)."""
    try:
        with open(path, newline="") as f:
            reader = csv.DictReader(f)
            rows = list(reader)
            columns = reader.fieldnames or []
    except OSError as e:
        raise PlotError(f"cannot read it: {e.strerror}") from None
    except (csv.Error, UnicodeDecodeError) as e:
        raise PlotError(f"not a CSV file ({e}); give the merged.csv utils/sweep wrote") from None
    if not columns or not rows:
        raise PlotError("empty: no rows to plot; run the sweep first (utils/sweep ... --out DIR "
                        "writes DIR/merged.csv)")
    if not any(c.startswith("point.") for c in columns):
        raise PlotError("no point.* columns: not a merged.csv of utils/sweep (plot an example's "
                        "JSON with its own kind)")
    return columns, rows


def sweep(path, out, plt, opts):
    """Mean of a value over the seeds of each grid point, with its spread, per series."""
    columns, rows = read_sweep(path)
    points = [c for c in columns if c.startswith("point.")]

    def column(name, flag):
        if name in columns:
            return name
        if "point." + name in columns:
            return "point." + name
        raise PlotError(f"{flag} {name}: no such column; columns: {', '.join(columns)}")

    over = column(opts["over"], "--over") if opts["over"] else next(
        (c for c in SEED_COLUMNS if c in columns), None)
    if opts["x"]:
        x = column(opts["x"], "--x")
    else:
        x = next((c for c in points if c != over), None)
        if x is None:
            raise PlotError(f"the grid varies only {over}: nothing for the x axis; add a grid "
                            "flag (utils/sweep --grid FLAG=V1,V2) or name a column with --x")
    if opts["y"]:
        y = column(opts["y"], "--y")
    else:
        y = next((c for c in VALUE_COLUMNS if c in columns), None)
        if y is None:
            numeric = [c for c in columns if c not in points
                       and all(quantity(r[c]) is not None for r in rows if r[c] != "")
                       and any(r[c] != "" for r in rows)]
            raise PlotError("no known value column; name the one to plot with --y "
                            f"(numeric columns: {', '.join(numeric) or 'none'})")
    if y == x or y == over:
        raise PlotError(f"--y {y} is also the x axis or the seed; name a result column")
    if opts["by"] is not None:
        by = [column(c, "--by") for c in opts["by"].split(",") if c]
    else:
        by = [c for c in points if c not in (x, over)]
        # Several rows per point (one per fabric, scheme, ...): those are series too.
        keys = [tuple(r[c] for c in points) for r in rows]
        for c in CASE_COLUMNS:
            if c in columns and c not in by and len({(k, r[c]) for k, r in zip(keys, rows)}) > len(
                    set(keys)):
                by.append(c)

    series = {}
    for line, r in enumerate(rows, 2):
        if r.get(y, "") == "":
            continue
        value = quantity(r[y])
        if value is None:
            raise PlotError(f"line {line}: {y} = '{r[y]}' is not a number; name a numeric "
                            "column with --y")
        key = ", ".join(f'{c.removeprefix("point.")}={r[c]}' for c in by)
        series.setdefault(key, {}).setdefault(r[x], []).append(value)
    if not series:
        raise PlotError(f"no row has a value for {y}; name another column with --y")

    xs_all = list(dict.fromkeys(r[x] for r in rows))
    numeric = [quantity(v) for v in xs_all]
    numeric_x = all(v is not None for v in numeric)
    position = dict(zip(xs_all, numeric if numeric_x else range(len(xs_all))))
    seeds = max(len(v) for s in series.values() for v in s.values())
    fig, ax = plt.subplots(figsize=(8, 4.5))
    print("series\t" + x.removeprefix("point.") + "\tn\tmean\tmin\tmax\tstd")
    for key, by_x in series.items():
        xv = sorted(by_x, key=lambda v: position[v])
        px, mean, lo, hi, sd = [], [], [], [], []
        for v in xv:
            ys = by_x[v]
            m = sum(ys) / len(ys)
            s = math.sqrt(sum((q - m) ** 2 for q in ys) / (len(ys) - 1)) if len(ys) > 1 else 0.0
            px.append(position[v])
            mean.append(m)
            lo.append(min(ys))
            hi.append(max(ys))
            sd.append(s)
            print(f"{key or '-'}\t{v}\t{len(ys)}\t{m:.6g}\t{min(ys):.6g}\t{max(ys):.6g}\t{s:.6g}")
        line, = ax.plot(px, mean, "o-", label=key or y)
        if opts["spread"] == "std":
            ax.errorbar(px, mean, yerr=sd, fmt="none", ecolor=line.get_color(), capsize=3)
        else:
            ax.fill_between(px, lo, hi, color=line.get_color(), alpha=0.2)
    if numeric_x:
        values = [position[v] for v in xs_all]
        if min(values) > 0 and max(values) / min(values) >= 16:
            binary = any(re.search(r"[KMGT]i", v) for v in xs_all)
            ax.set_xscale("log", base=2 if binary else 10)
        ax.set_xticks([position[v] for v in xs_all])
        ax.set_xticklabels(xs_all, fontsize=8)
    else:
        ax.set_xticks(range(len(xs_all)))
        ax.set_xticklabels(xs_all, fontsize=8)
    ax.minorticks_off()
    ax.set_xlabel(x.removeprefix("point."))
    ax.set_ylabel(y)
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=8)
    spread = "error bars: one standard deviation" if opts["spread"] == "std" else "band: min to max"
    seeds_text = (f"mean over {seeds} values of {over.removeprefix('point.')} per point, {spread}"
                  if over else "one run per point (no seed column; sweep --grid RngRun=1,2,3)")
    fig.suptitle(f"{y} vs {x.removeprefix('point.')}\n{seeds_text}", fontsize=10)
    fig.tight_layout()
    fig.savefig(out, dpi=120)


def monitor_files(doc, kind):
    """The monitor CSVs a results document names (outputs.<kind>), read as dicts."""
    files = doc.get("outputs", {}).get(kind, [])
    if not files:
        raise PlotError(f"the results name no {kind} file; run the example with "
                        f"--{'linkMonitor' if kind == 'link_monitor' else kind}=FILE")
    out = []
    for name in files:
        try:
            with open(name) as f:
                out.append((name, list(csv.DictReader(f))))
        except OSError as e:
            raise PlotError(f"cannot read its {kind} file {name}: {e.strerror}") from None
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


# Kinds that draw one example's document: the document's "name" must be the kind.
# (A kind that draws a section any example may write checks for that section.)
EXAMPLE_KINDS = ("compression-utility", "collective-validation", "railonly-cost",
                 "topoopt-cluster", "checkmate-recovery", "training-cluster", "railonly-llm")


def parse_args(argv):
    """(kind, input, output, sweep options); None after a usage error."""
    kinds = [*PLOTS, "sweep"]
    opts = {"x": None, "y": None, "over": None, "by": None, "spread": "minmax"}
    positional = []
    args = list(argv[1:])
    ok = True
    while args:
        a = args.pop(0)
        if not a.startswith("--"):
            positional.append(a)
            continue
        name, eq, value = a[2:].partition("=")
        if not eq and args:
            value = args.pop(0)
        ok &= name in opts and (bool(eq) or value != "")
        opts[name] = value
    kind = positional[0] if positional else None
    ok &= len(positional) == 3 and kind in kinds and opts["spread"] in ("minmax", "std")
    ok &= kind == "sweep" or list(opts.values()) == [None, None, None, None, "minmax"]
    if not ok:
        sys.stderr.write(f"error: usage: plot.py {{{'|'.join(kinds)}}} RESULTS.json OUT.png; "
                         "plot.py sweep merged.csv OUT.png [--x COL] [--y COL] [--over COL] "
                         "[--by COL,...] [--spread minmax|std]\n")
        return None
    return (*positional, opts)


def draw(kind, path, out, plt, opts):
    """Read the input, check it is of this kind, draw it; PlotError for what cannot be."""
    if kind == "sweep":
        sweep(path, out, plt, opts)
        return
    try:
        with open(path) as f:
            doc = json.load(f)
    except OSError as e:
        raise PlotError(f"cannot read it: {e.strerror}") from None
    except ValueError as e:
        raise PlotError(f"not JSON ({e}); give the --json file an example wrote (a sweep's "
                        "merged.csv is plotted with the sweep kind)") from None
    name = doc.get("name") if isinstance(doc, dict) else None
    if not isinstance(name, str):
        raise PlotError("not an example's results document (no \"name\"); give the --json "
                        "file an example wrote")
    if kind in EXAMPLE_KINDS and name != kind:
        fix = (f"plot it with: plot.py {name} {path} OUT.png" if name in PLOTS
               else f"no kind draws it (kinds: {', '.join(PLOTS)})")
        raise PlotError(f"a {name} document, not {kind}; {fix}")
    try:
        PLOTS[kind](doc, out, plt)
    except (KeyError, TypeError, ValueError, IndexError, ZeroDivisionError) as e:
        raise PlotError(f"the {kind} plot cannot read this document ({type(e).__name__}: {e}); "
                        f"was it written by this version of {kind}?") from None


class LazyPyplot:
    """matplotlib.pyplot, imported when a plot first draws: input that cannot be drawn
    is refused before the (slow) import."""

    def __getattr__(self, name):
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot
        return getattr(matplotlib.pyplot, name)


def main(argv):
    parsed = parse_args(argv)
    if parsed is None:
        return 2
    kind, path, out, opts = parsed
    plt = LazyPyplot()
    try:
        draw(kind, path, out, plt, opts)
    except ImportError:
        sys.stderr.write("plot: matplotlib is not installed (utils/setup.sh installs it); no PNG\n")
        return 3
    except PlotError as e:
        sys.stderr.write(f"error: {path}: {e}\n")
        return 1
    except OSError as e:
        sys.stderr.write(f"error: cannot write {out}: {e.strerror}; check that its folder "
                         "exists and is writable\n")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
