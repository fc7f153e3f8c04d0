#!/usr/bin/env bash
# Installs, only when missing, every Debian package the project needs to build,
# test, run its examples and draw its plots. Idempotent: a second run does nothing.
set -euo pipefail

packages=(
  build-essential cmake pkg-config
  libns3-dev ns3 libgsl-dev          # ns-3 3.37: its CMake config references all three
  libboost-dev libboost-graph-dev libeigen3-dev nlohmann-json3-dev
  libgtest-dev
  python3 python3-matplotlib         # utils/plot and the examples' PNGs
)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "setup: all ${#packages[@]} packages present"
  exit 0
fi

echo "setup: installing ${missing[*]}"
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -q
$SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"
