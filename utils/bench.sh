#!/usr/bin/env bash
# Builds the project and runs the benchmarks; prints figures measured in one run.
# Usage: utils/bench.sh [ring-bench flags]
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
"$top/utils/setup.sh" >/dev/null
dir=$("$top/utils/build.sh" | tail -n 1)
"$dir/bench/ring-bench" "$@"
