#!/usr/bin/env bash
# Scaling table: wall time, CPU time, peak memory and events per second of ring
# all-reduce and pairwise all-to-all on a 2-tier fat-tree (100 Gbps, fast data path)
# from --min-ranks up to --max-ranks (doubling), and of one training iteration of a
# 128-rank job. Every point is one process under /usr/bin/time.
# Usage: utils/bench-scaling.sh [--min-ranks=8] [--max-ranks=4096] [--allreduce-bytes=1MiB]
#                               [--alltoall-bytes=4KiB] [--alltoall-max-ranks=1024]
#                               [--data-path=auto|fast|ipv4] [--level=packet|flow] [--no-training]
# --level=flow times the flow level (the fluid engine over the same fabric and routes;
# the "packet s" column is then the fluid run alone). The data path defaults to fast at
# packet level and to auto at flow level, which builds the fabric as a graph without
# devices, as a flow-level run does unless told otherwise; --data-path=fast there times
# the fluid over a fabric with devices that it never reads.
# All-to-all sends n^2 messages; it stops at --alltoall-max-ranks (4096 ranks would
# take hours on two cores). Columns: "packet s" is the simulator run alone (the
# report's row wall_s: no fabric build, no twin); "events/s" divides the run's events
# by it, "events/s all" by the whole process's wall time (build and twin included).
# Prints a markdown table (the one in contrib/mlnet/doc/performance.md).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
min=8; max=4096; arBytes=1MiB; a2aBytes=4KiB; a2aMax=1024; path=; training=1; level=packet
for a in "$@"; do
  case "$a" in
    --min-ranks=*) min=${a#--min-ranks=} ;;
    --max-ranks=*) max=${a#--max-ranks=} ;;
    --alltoall-max-ranks=*) a2aMax=${a#--alltoall-max-ranks=} ;;
    --no-training) training=0 ;;
    --allreduce-bytes=*) arBytes=${a#--allreduce-bytes=} ;;
    --alltoall-bytes=*) a2aBytes=${a#--alltoall-bytes=} ;;
    --data-path=*) path=${a#--data-path=} ;;
    --level=packet|--level=flow) level=${a#--level=} ;;
    *) echo "error: unknown option $a; see the usage at the top of $0" >&2; exit 1 ;;
  esac
done
if [ -z "$path" ]; then
  if [ "$level" = flow ]; then path=auto; else path=fast; fi
fi
"$top/utils/setup.sh" >/dev/null
build=$("$top/utils/build.sh" | tail -n 1)
cv="$build/examples/collective-validation/collective-validation"
tw="$build/examples/training-workload/training-workload"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# run LABEL RANKS COMMAND... : one row (wall s, CPU s, packet-run s, peak RSS MiB,
# RSS per rank KiB, events, events/s of the packet run and of the process, simulated s).
run() {
  local label=$1 ranks=$2; shift 2
  /usr/bin/time -f "%e %U %S %M" -o "$tmp/time" "$@" --level="$level" --json="$tmp/out.json" >"$tmp/stdout" 2>"$tmp/stderr" || {
    echo "error: $label at $ranks ranks failed: $(tail -n 1 "$tmp/stderr")" >&2; exit 1; }
  read -r wall user sys rss <"$tmp/time"
  /usr/bin/python3 - "$label" "$ranks" "$wall" "$user" "$sys" "$rss" "$tmp/out.json" <<'PY'
import json, sys
label, ranks, wall, user, sys_, rss, path = sys.argv[1:]
doc = json.load(open(path))
events = doc.get("events", 0)
row = doc["rows"][0]
sim = row.get("simulated_s", row.get("iteration_s", 0))
packet = row.get("wall_s") or float(wall)
wall, cpu = float(wall), float(user) + float(sys_)
print(f"| {label} | {ranks} | {wall:.2f} | {cpu:.2f} | {packet:.2f} | {int(rss) / 1024:.0f} | "
      f"{int(rss) / int(ranks):.0f} | {events:.3g} | {events / max(packet, 1e-9):.3g} | "
      f"{events / max(wall, 1e-9):.3g} | {sim:.6g} |")
PY
}

echo "fat-tree (2 tiers, 100 Gbps, MTU 9000), level: $level, data path: $path; ring all-reduce of $arBytes per rank, pairwise all-to-all of $a2aBytes per pair"
echo
echo "| run | ranks | wall s | CPU s | packet s | peak RSS MiB | RSS/rank KiB | events | events/s | events/s all | simulated s |"
echo "|---|---|---|---|---|---|---|---|---|---|---|"
for ((n = min; n <= max; n *= 2)); do
  run "ring all-reduce" "$n" "$cv" --fabric=fattree --ranks="$n" --dataPath="$path" \
      --collective=allreduce --algorithm=ring --bytes="$arBytes"
done
for ((n = min; n <= max && n <= a2aMax; n *= 2)); do
  run "pairwise all-to-all" "$n" "$cv" --fabric=fattree --ranks="$n" --dataPath="$path" \
      --collective=alltoall --algorithm=pairwise --bytes="$a2aBytes"
done
if ((training && max >= 128)); then
  run "training iteration (transformer-medium)" 128 "$tw" --fabric=fattree --ranks=128 \
      --dataPath="$path" --iterations=1 \
      --workload="$top/workloads/training/transformer-medium.json"
fi
