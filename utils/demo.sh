#!/usr/bin/env bash
# Set-up, build and run the default scenario (examples/training-cluster): one training
# job on a fat-tree, TopoOpt and rail-only; says where its results went.
# Extra arguments go to the example, e.g. ./utils/demo.sh --fabrics=fattree,railonly
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
"$top/utils/setup.sh"
dir=$("$top/utils/build.sh" | tail -n 1)
out="$top/results/training-cluster"
mkdir -p "$out"
"$dir/examples/training-cluster/training-cluster" --out="$out" "$@"
echo "demo: the results folder is $out (training-cluster.json, .csv, .png)"
echo "      other scenarios: $dir/examples/*/ (each takes --PrintHelp)"
