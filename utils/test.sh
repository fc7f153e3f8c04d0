#!/usr/bin/env bash
# Set-up, build and run the whole test suite through ctest.
# Usage: utils/test.sh [--sanitize] [extra ctest arguments]
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
"$top/utils/setup.sh"
mode=()
if [ "${1:-}" = "--sanitize" ]; then mode=(--sanitize); shift; fi
dir=$("$top/utils/build.sh" "${mode[@]}" | tail -n 1)
jobs=${MLNET_JOBS:-$(nproc)}
if [ ${#mode[@]} -gt 0 ]; then
  export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1
  export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
fi
cd "$dir"
ctest --output-on-failure -j "$jobs" "$@"
