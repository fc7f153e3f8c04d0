#!/usr/bin/env bash
# Configures and builds the project. Usage: utils/build.sh [--sanitize]
# Release build in build/, ASan+UBSan build in build-sanitize/. Build output goes to
# stderr; the build folder is printed on stdout, so callers can capture it.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
dir="$top/build"; extra=()
if [ "${1:-}" = "--sanitize" ]; then
  dir="$top/build-sanitize"; extra=(-DCMAKE_BUILD_TYPE=RelWithDebInfo -DMLNET_SANITIZE=ON)
fi
jobs=${MLNET_JOBS:-$(nproc)}
cmake -S "$top" -B "$dir" "${extra[@]}" >&2
cmake --build "$dir" -j "$jobs" >&2
echo "$dir"
