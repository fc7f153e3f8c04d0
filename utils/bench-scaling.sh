#!/usr/bin/env bash
# Scaling table: wall time and peak memory of ring all-reduce and pairwise all-to-all
# on a 2-tier fat-tree (100 Gbps, fast data path) from 8 ranks up, and of one training
# iteration of a 128-rank job. Every point is one process under /usr/bin/time.
# Usage: utils/bench-scaling.sh [--max-ranks=1024] [--allreduce-bytes=1MiB]
#                               [--alltoall-bytes=4KiB] [--data-path=fast|ipv4]
# Prints a markdown table (the one in contrib/mlnet/doc/performance.md).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
max=1024; arBytes=1MiB; a2aBytes=4KiB; path=fast
for a in "$@"; do
  case "$a" in
    --max-ranks=*) max=${a#--max-ranks=} ;;
    --allreduce-bytes=*) arBytes=${a#--allreduce-bytes=} ;;
    --alltoall-bytes=*) a2aBytes=${a#--alltoall-bytes=} ;;
    --data-path=*) path=${a#--data-path=} ;;
    *) echo "error: unknown option $a; see the usage at the top of $0" >&2; exit 1 ;;
  esac
done
"$top/utils/setup.sh" >/dev/null
build=$("$top/utils/build.sh" | tail -n 1)
cv="$build/examples/collective-validation/collective-validation"
tw="$build/examples/training-workload/training-workload"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# run LABEL RANKS COMMAND... : one row (wall s, peak RSS MiB, events, simulated s).
run() {
  local label=$1 ranks=$2; shift 2
  /usr/bin/time -f "%e %M" -o "$tmp/time" "$@" --json="$tmp/out.json" >"$tmp/stdout" 2>"$tmp/stderr" || {
    echo "error: $label at $ranks ranks failed: $(tail -n 1 "$tmp/stderr")" >&2; exit 1; }
  read -r wall rss <"$tmp/time"
  /usr/bin/python3 - "$label" "$ranks" "$wall" "$rss" "$tmp/out.json" <<'PY'
import json, sys
label, ranks, wall, rss, path = sys.argv[1:]
doc = json.load(open(path))
events = doc.get("events", 0)
row = doc["rows"][0]
sim = row.get("simulated_s", row.get("iteration_s", 0))
print(f"| {label} | {ranks} | {float(wall):.2f} | {int(rss) / 1024:.0f} | {events:.3g} | {float(events) / max(float(wall), 1e-9):.3g} | {sim:.6g} |")
PY
}

echo "fat-tree (2 tiers, 100 Gbps, MTU 9000), data path: $path; ring all-reduce of $arBytes per rank, pairwise all-to-all of $a2aBytes per pair"
echo
echo "| run | ranks | wall s | peak RSS MiB | events | events/wall s | simulated s |"
echo "|---|---|---|---|---|---|---|"
for ((n = 8; n <= max; n *= 2)); do
  run "ring all-reduce" "$n" "$cv" --fabric=fattree --ranks="$n" --dataPath="$path" \
      --collective=allreduce --algorithm=ring --bytes="$arBytes"
  run "pairwise all-to-all" "$n" "$cv" --fabric=fattree --ranks="$n" --dataPath="$path" \
      --collective=alltoall --algorithm=pairwise --bytes="$a2aBytes"
done
if ((max >= 128)); then
  run "training iteration (transformer-medium)" 128 "$tw" --fabric=fattree --ranks=128 \
      --dataPath="$path" --iterations=1 \
      --workload="$top/workloads/training/transformer-medium.json"
fi
