#!/usr/bin/env bash
# Configures and builds the project.
# Usage: utils/build.sh [--sanitize | --optimized | --fuzz [TARGET...]]
# Release build in build/ against Debian's ns-3 package; ASan+UBSan build in
# build-sanitize/; with --optimized, a Release build in build-optimized/ against the
# optimized ns-3 of ./utils/setup.sh --optimized (third_party/ns3-opt/, or
# $MLNET_NS3_PREFIX); with --fuzz, clang's ASan+UBSan+libFuzzer build in build-fuzz/
# (-DMLNET_FUZZ=ON, ccache if installed), of the named targets only (default: the
# fuzz targets; contrib/mlnet/doc/fuzzing.md). Build output goes to stderr; the build
# folder is printed on stdout, so callers can capture it.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
dir="$top/build"; extra=(-DMLNET_NS3_PREFIX=system); targets=()
case "${1:-}" in
  --fuzz)
    shift
    dir="$top/build-fuzz"
    extra=(-DMLNET_NS3_PREFIX=system -DCMAKE_BUILD_TYPE=RelWithDebInfo -DMLNET_FUZZ=ON
           -DCMAKE_CXX_COMPILER=clang++-14)
    if command -v ccache >/dev/null; then extra+=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache); fi
    targets=(--target "$@")
    if [ $# -eq 0 ]; then targets=(--target fuzz); fi ;;
  --sanitize)
    dir="$top/build-sanitize"
    extra=(-DMLNET_NS3_PREFIX=system -DCMAKE_BUILD_TYPE=RelWithDebInfo -DMLNET_SANITIZE=ON) ;;
  --optimized)
    prefix=${MLNET_NS3_PREFIX:-$top/third_party/ns3-opt}
    if [ ! -f "$prefix/lib/cmake/ns3/ns3Config.cmake" ]; then
      echo "build: no optimized ns-3 in $prefix; run ./utils/setup.sh --optimized first" >&2
      exit 1
    fi
    dir="$top/build-optimized"; extra=(-DMLNET_NS3_PREFIX="$prefix") ;;
  "") ;;
  *) echo "build: unknown argument '$1' (usage: utils/build.sh [--sanitize | --optimized |" \
          "--fuzz [TARGET...]])" >&2
     exit 2 ;;
esac
jobs=${MLNET_JOBS:-$(nproc)}
cmake -S "$top" -B "$dir" "${extra[@]}" >&2
cmake --build "$dir" -j "$jobs" "${targets[@]}" >&2
echo "$dir"
