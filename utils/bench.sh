#!/usr/bin/env bash
# Builds the project and runs bench/ring-bench against Debian's ns-3 package and, when
# ./utils/setup.sh --optimized has installed it, against the optimized ns-3 too, the
# runs of both builds interleaved; prints one table and the ratios, measured in one run.
# Usage: utils/bench.sh [--repeat=N] [ring-bench flags, e.g. --ranks=8 --bytes=64MiB,
#        --scenario=permutation for the 2-tier fat-tree permutation]
# cpu_s is the CPU time of the best (by wall time) run: on a loaded machine compare it too.
# The last two lines are always
#   ratio ipv4-path/stock: X.XX   (mlnet IPv4 path on the optimized ns-3 when installed,
#                                  else on Debian's, vs stock ns-3 UDP on Debian's package)
#   ratio fast-path/stock: X.XX   (mlnet fast data path, same builds as above)
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
repeat=3; args=()
for a in "$@"; do
  case "$a" in
    --repeat=*) repeat=${a#--repeat=} ;;
    --tsv) ;;
    *) args+=("$a") ;;
  esac
done
"$top/utils/setup.sh" >/dev/null
bins=("$("$top/utils/build.sh" | tail -n 1)/bench/ring-bench")
prefix=${MLNET_NS3_PREFIX:-$top/third_party/ns3-opt}
if [ -f "$prefix/lib/cmake/ns3/ns3Config.cmake" ]; then
  bins+=("$("$top/utils/build.sh" --optimized | tail -n 1)/bench/ring-bench")
else
  echo "bench: no optimized ns-3 installed (./utils/setup.sh --optimized builds it);" \
       "measuring Debian's package only" >&2
fi
out=$(mktemp)
trap 'rm -f "$out"' EXIT
# Interleave the builds run by run so that machine noise hits all of them alike.
for ((r = 0; r < repeat; r++)); do
  for b in "${bins[@]}"; do
    "$b" "${args[@]}" --repeat=1 --tsv >>"$out"
  done
done
awk -F'\t' -v repeat="$repeat" -v args="${args[*]:-(defaults)}" '
$1 == "result" {
  key = $2 SUBSEP $3
  if (!(key in wall) || $5 < wall[key]) {
    hops[key] = $4; wall[key] = $5; events[key] = $6; sim[key] = $7; cpu[key] = $8
  }
  if (!seen[key]++) order[++n] = key
}
function rate(k) { return hops[k] / wall[k] }
END {
  printf "ring-bench %s, best of %d interleaved runs per build\n", args, repeat
  printf "%-16s %-10s %12s %9s %8s %13s %14s %11s\n", "ns-3", "variant", "packet-hops",
         "wall_s", "cpu_s", "hops/wall_s", "events/wall_s", "sim_s"
  for (i = 1; i <= n; i++) {
    k = order[i]; split(k, p, SUBSEP)
    printf "%-16s %-10s %12d %9.3f %8.3f %13.4g %14.4g %11.6f\n", p[1], p[2], hops[k], wall[k],
           cpu[k], rate(k), events[k] / wall[k], sim[k]
  }
  stock = "Debian package" SUBSEP "stock"
  ipv4 = "Debian package" SUBSEP "ipv4-path"
  if (("optimized" SUBSEP "ipv4-path") in wall) {
    ipv4 = "optimized" SUBSEP "ipv4-path"
    printf "ratio stock optimized/Debian: %.2f\n", rate("optimized" SUBSEP "stock") / rate(stock)
    printf "ratio ipv4-path Debian/stock: %.2f\n", rate("Debian package" SUBSEP "ipv4-path") / rate(stock)
  }
  fast = "Debian package" SUBSEP "fast-path"
  if (("optimized" SUBSEP "fast-path") in wall) {
    printf "ratio fast-path Debian/stock: %.2f\n", rate(fast) / rate(stock)
    fast = "optimized" SUBSEP "fast-path"
  }
  split(ipv4, p, SUBSEP)
  printf "ipv4-path and fast-path measured on ns-3 %s, stock on ns-3 Debian package\n", p[1]
  printf "ratio ipv4-path/stock: %.2f\n", rate(ipv4) / rate(stock)
  printf "ratio fast-path/stock: %.2f\n", rate(fast) / rate(stock)
}' "$out"
