#!/usr/bin/env bash
# Configures and builds the project. Usage: utils/build.sh [--sanitize]
# Release build in build/, ASan+UBSan build in build-sanitize/.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
dir="$top/build"; extra=()
if [ "${1:-}" = "--sanitize" ]; then
  dir="$top/build-sanitize"; extra=(-DCMAKE_BUILD_TYPE=RelWithDebInfo -DMLNET_SANITIZE=ON)
fi
jobs=${MLNET_JOBS:-$(nproc)}
cmake -S "$top" -B "$dir" "${extra[@]}" >/dev/null
cmake --build "$dir" -j "$jobs"
echo "$dir"
