#!/usr/bin/env bash
# Set-up, build and run the whole test suite through ctest.
# Usage: utils/test.sh [--sanitize | --sanitize-subset | --optimized] [extra ctest arguments]
# --optimized builds ns-3 from Debian's source package first if it is not installed
# yet (./utils/setup.sh --optimized), then tests build-optimized/ against it.
# --sanitize-subset builds and runs only the sanitizer subset (ctest label
# sanitizer-subset, listed in fuzz/CMakeLists.txt) in clang's ASan+UBSan build-fuzz/,
# the objects the fuzz targets use (what CI runs; contrib/mlnet/doc/fuzzing.md).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
mode=()
case "${1:-}" in
  --sanitize | --sanitize-subset | --optimized) mode=("$1"); shift ;;
esac
case "${mode[*]:-}" in
  --optimized) "$top/utils/setup.sh" --optimized ;;
  --sanitize-subset) "$top/utils/setup.sh" --fuzz ;;
  *) "$top/utils/setup.sh" ;;
esac
if [ "${mode[*]:-}" = "--sanitize-subset" ]; then
  dir=$("$top/utils/build.sh" --fuzz sanitizer-subset-test | tail -n 1)
  set -- -L sanitizer-subset "$@"
else
  dir=$("$top/utils/build.sh" "${mode[@]}" | tail -n 1)
fi
jobs=${MLNET_JOBS:-$(nproc)}
if [ "${mode[*]:-}" = "--sanitize" ] || [ "${mode[*]:-}" = "--sanitize-subset" ]; then
  export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1
  export LSAN_OPTIONS=suppressions="$top/utils/lsan.supp"
  export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
fi
cd "$dir"
ctest --output-on-failure -j "$jobs" "$@"
