#!/usr/bin/env bash
# Set-up, build and run the whole test suite through ctest.
# Usage: utils/test.sh [--sanitize | --optimized] [extra ctest arguments]
# --optimized builds ns-3 from Debian's source package first if it is not installed
# yet (./utils/setup.sh --optimized), then tests build-optimized/ against it.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
mode=()
case "${1:-}" in
  --sanitize | --optimized) mode=("$1"); shift ;;
esac
if [ "${mode[*]:-}" = "--optimized" ]; then
  "$top/utils/setup.sh" --optimized
else
  "$top/utils/setup.sh"
fi
dir=$("$top/utils/build.sh" "${mode[@]}" | tail -n 1)
jobs=${MLNET_JOBS:-$(nproc)}
if [ "${mode[*]:-}" = "--sanitize" ]; then
  export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1
  export LSAN_OPTIONS=suppressions="$top/utils/lsan.supp"
  export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
fi
cd "$dir"
ctest --output-on-failure -j "$jobs" "$@"
