#!/usr/bin/env bash
# Set-up, build and run the default example; says where its results went.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
"$top/utils/setup.sh"
dir=$("$top/utils/build.sh" | tail -n 1)
out="$top/results/collective-validation"
mkdir -p "$out"
"$dir/examples/collective-validation/collective-validation" \
  --fabric=ideal --collective=allreduce --algorithm=ring --ranks=8 --bytes=8MiB \
  --json="$out/demo.json" "$@"
echo "demo: the results folder is $out; for the validation sweep and its plot run"
echo "      $dir/examples/collective-validation/collective-validation --sweep --json=$out/sweep.json"
