#!/usr/bin/env bash
# Installs, only when missing, every Debian package the project needs to build,
# test, run its examples and draw its plots. Idempotent: a second run does nothing.
# Usage: utils/setup.sh [--fuzz] [--optimized [--force]]
#   --fuzz       also clang 14 and its runtimes (libFuzzer, ASan, UBSan) for the fuzz
#                targets and the sanitizer subset (utils/fuzz.sh, utils/test.sh
#                --sanitize-subset)
#   --optimized  then also builds ns-3 3.37 from Debian's source package, optimized and
#                with MPI, into third_party/ns3-opt/ (utils/build-ns3.sh; once, a few
#                minutes; --force rebuilds it).
set -euo pipefail
optimized=0; fuzz=0
usage="usage: utils/setup.sh [--fuzz] [--optimized [--force]]"
while [ $# -gt 0 ]; do
  case "$1" in
    --fuzz) fuzz=1; shift ;;
    --optimized) optimized=1; shift; break ;;
    *) echo "setup: unknown argument '$1' ($usage)" >&2
       exit 2 ;;
  esac
done

packages=(
  build-essential cmake pkg-config
  libns3-dev ns3 libgsl-dev          # ns-3 3.37: its CMake config references all three
  libboost-dev libboost-graph-dev libeigen3-dev nlohmann-json3-dev
  libgtest-dev
  python3 python3-matplotlib         # utils/plot and the examples' PNGs
  tshark                             # tests: pcap captures decode as IPv4/UDP
)
if [ $fuzz -eq 1 ]; then
  packages+=(clang-14 libclang-rt-14-dev) # libFuzzer and the sanitizer runtimes
fi

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "setup: all ${#packages[@]} packages present"
else
  echo "setup: installing ${missing[*]}"
  SUDO=""
  if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
  export DEBIAN_FRONTEND=noninteractive
  # tshark pulls in wireshark-common, which asks whether non-root users may capture;
  # answer no beforehand (the tests only read files).
  echo "wireshark-common wireshark-common/install-setuid boolean false" |
    $SUDO debconf-set-selections
  $SUDO apt-get update -q
  $SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"
fi

if [ $optimized -eq 1 ]; then
  exec "$(cd "$(dirname "$0")" && pwd)/build-ns3.sh" "$@"
fi
