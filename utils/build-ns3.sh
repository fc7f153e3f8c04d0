#!/usr/bin/env bash
# Builds an optimized ns-3 3.37 with MPI from Debian's own source package and installs
# it into a project-local prefix (third_party/ns3-opt/, git-ignored) that the project's
# CMake picks up when present. Usage: utils/build-ns3.sh [--force]
#
#  1. adds a deb-src entry for the Debian archive this machine already uses
#     (/etc/apt/sources.list.d/mlnet-deb-src.sources) and runs apt-get update;
#  2. installs, only when missing, the few build dependencies (compiler, CMake, Open MPI);
#  3. `apt-get source ns3` into third_party/ns3-src/ (Debian's patches applied);
#  4. configures ns-3's CMake with only the modules this project needs, profile
#     "optimized" (-O3, NS_LOG and NS_ASSERT compiled out), MPI on, no examples/tests;
#  5. builds with `nice -n 10` and installs into the prefix.
# Idempotent: with the prefix installed it does nothing unless --force is given.
# Environment: MLNET_NS3_PREFIX (install prefix), MLNET_JOBS (parallel jobs, default 2).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
prefix=${MLNET_NS3_PREFIX:-$top/third_party/ns3-opt}
srcroot=$top/third_party/ns3-src
stamp=$prefix/share/mlnet-ns3-build.txt   # written last: its presence means "installed"
jobs=${MLNET_JOBS:-2}
force=0
for a in "$@"; do
  case "$a" in
    --force) force=1 ;;
    *) echo "build-ns3: unknown argument '$a' (usage: utils/build-ns3.sh [--force])" >&2; exit 2 ;;
  esac
done

if [ -f "$stamp" ] && [ $force -eq 0 ]; then
  echo "build-ns3: optimized ns-3 already installed in $prefix (--force rebuilds)"
  exit 0
fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
t_start=$(date +%s)

# --- 1. deb-src entry for the archive already in use -----------------------------------
. /etc/os-release
codename=${VERSION_CODENAME:?no VERSION_CODENAME in /etc/os-release}
ours=/etc/apt/sources.list.d/mlnet-deb-src.sources
# Prints a deb822 deb-src stanza for every enabled binary entry of release $codename,
# from deb822 files (deb822=1) or one-line sources.list files (deb822=0).
gen_awk='
function flush() {
  if (types ~ /(^| )deb( |$)/ && enabled != "no" && (" " suites " ") ~ (" " codename " ")) {
    print "Types: deb-src"; print "URIs: " uris; print "Suites: " codename
    print "Components: " comps
    if (signed != "") print "Signed-By: " signed
    print ""
  }
  types = uris = suites = comps = signed = enabled = ""
}
deb822 && /^[ \t]*#/ { next }
deb822 && /^[ \t]*$/ { flush(); next }
deb822 && /^[ \t]/ { next }
deb822 {
  key = tolower($1); sub(/:$/, "", key); val = $0; sub(/^[^:]*:[ \t]*/, "", val)
  if (key == "types") types = val; else if (key == "uris") uris = val
  else if (key == "suites") suites = val; else if (key == "components") comps = val
  else if (key == "signed-by") signed = val; else if (key == "enabled") enabled = tolower(val)
  next
}
!deb822 && $1 == "deb" {
  i = 2; opts = ""
  if ($2 ~ /^\[/) { while (i < NF && $i !~ /\]$/) { opts = opts " " $i; i++ } opts = opts " " $i; i++ }
  types = "deb"; uris = $i; suites = $(i + 1); comps = ""
  for (j = i + 2; j <= NF && $j !~ /^#/; j++) comps = comps (comps == "" ? "" : " ") $j
  if (match(opts, /signed-by=[^] ]+/)) signed = substr(opts, RSTART + 10, RLENGTH - 10)
  flush()
}
END { if (deb822) flush() }'
has_src=0
stanzas=""
for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources; do
  [ -f "$f" ] && [ "$f" != "$ours" ] || continue
  case "$f" in
    *.sources)
      deb822=1
      if grep -qiE '^[[:space:]]*Types:.*deb-src' "$f"; then has_src=1; fi ;;
    *)
      deb822=0
      if grep -qE "^[[:space:]]*deb-src[[:space:]].*[[:space:]]$codename[[:space:]]" "$f"; then has_src=1; fi ;;
  esac
  stanzas+=$(awk -v codename="$codename" -v deb822=$deb822 "$gen_awk" "$f")$'\n\n'
done
if [ $has_src -eq 1 ]; then
  echo "build-ns3: a deb-src entry for $codename is already configured"
elif [ -z "${stanzas//[$'\n']/}" ]; then
  echo "build-ns3: no apt entry for release '$codename' found to mirror as deb-src" >&2
  exit 1
else
  want="# Added by mlnet-sim utils/build-ns3.sh: source packages of the archive this
# machine already uses (for 'apt-get source ns3').
${stanzas%$'\n\n'}"
  if [ ! -f "$ours" ] || [ "$(cat "$ours")" != "$want" ]; then
    echo "build-ns3: writing $ours"
    printf '%s\n' "$want" | $SUDO tee "$ours" >/dev/null
    $SUDO apt-get update -q
  fi
fi
if ! apt-cache showsrc ns3 2>/dev/null | grep -q '^Package: ns3'; then
  $SUDO apt-get update -q
fi

# --- 2. build dependencies, only what is missing ------------------------------------------
# Not `apt-get build-dep ns3`: that pulls Debian's documentation toolchain (doxygen,
# sphinx, LaTeX, dia, ...) and Python-binding tools, none of which this build uses.
deps=(build-essential cmake dpkg-dev xz-utils libopenmpi-dev openmpi-bin libgsl-dev)
missing=()
for p in "${deps[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "build-ns3: installing ${missing[*]}"
  $SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"
fi

# --- 3. Debian's source package ------------------------------------------------------------
mkdir -p "$srcroot"
if [ $force -eq 1 ] || ! ls -d "$srcroot"/ns3-3.37*/ns-3.37 >/dev/null 2>&1; then
  rm -rf "${srcroot:?}"/*
  # The version of the archive's candidate, which is the one the binary package came from.
  (cd "$srcroot" && apt-get source -q ns3)
fi
pkgdir=$(ls -d "$srcroot"/ns3-3.37*/ | head -n 1)
# Debian's orig tarball is ns-allinone: ns-3 itself is its ns-3.37/ folder.
nsdir=${pkgdir%/}/ns-3.37
if [ ! -f "$nsdir/CMakeLists.txt" ] || ! grep -qx '3.37' "$nsdir/VERSION"; then
  echo "build-ns3: no ns-3 3.37 sources in $srcroot (Debian's candidate ns3 source is not 3.37?)" >&2
  exit 1
fi
echo "build-ns3: ns-3 sources in $nsdir"

# --- 4./5. configure, build, install ----------------------------------------------------
# Release is ns-3.37's "release" profile: -O3 -DNDEBUG, and with NS3_LOG/NS3_ASSERT off
# neither NS3_LOG_ENABLE nor NS3_ASSERT_ENABLE is defined. (Its "optimized" profile is
# the same plus -march=native, NS3_NATIVE_OPTIMIZATIONS, left off so that the install
# does not depend on this CPU.) Python is not looked for: without bindings it would only
# add its include folder to the exported targets.
build=$srcroot/build
# An interrupted build resumes where it stopped; --force starts from scratch.
if [ $force -eq 1 ]; then rm -rf "$build"; fi
modules="core;network;internet;point-to-point;traffic-control;applications;flow-monitor;stats;mpi"
t_build=$(date +%s)
nice -n 10 cmake -S "$nsdir" -B "$build" \
  -DCMAKE_BUILD_TYPE=Release -DCMAKE_INSTALL_PREFIX="$prefix" \
  -DCMAKE_INSTALL_LIBDIR=lib -DCMAKE_INSTALL_RPATH='$ORIGIN' \
  -DNS3_ENABLED_MODULES="$modules" \
  -DNS3_MPI=ON -DNS3_LOG=OFF -DNS3_ASSERT=OFF \
  -DNS3_EXAMPLES=OFF -DNS3_TESTS=OFF -DNS3_PYTHON_BINDINGS=OFF \
  -DNS3_WARNINGS_AS_ERRORS=OFF -DNS3_NATIVE_OPTIMIZATIONS=OFF \
  -DCMAKE_DISABLE_FIND_PACKAGE_Python3=ON
nice -n 10 cmake --build "$build" -j "$jobs"
rm -rf "$prefix"
nice -n 10 cmake --install "$build"
t_end=$(date +%s)
mkdir -p "$(dirname "$stamp")"
{
  echo "ns-3 3.37 from Debian source package $(basename "$pkgdir"), release profile (-O3 -DNDEBUG), NS3_LOG and NS3_ASSERT off, MPI on"
  echo "modules: $modules (and their dependencies)"
  echo "built: $(date -u +%Y-%m-%dT%H:%M:%SZ) on $(nproc) cores, -j$jobs"
  echo "build+install seconds: $((t_end - t_build)); total with fetch: $((t_end - t_start))"
} >"$stamp"
echo "build-ns3: installed into $prefix in $((t_end - t_start)) s (compile $((t_end - t_build)) s)"
