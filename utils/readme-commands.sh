#!/usr/bin/env bash
# Runs every shell command of README.md (its ```sh blocks) in the order written, in a
# fresh clone, and exits 1 at the first that fails, naming it. A command added to the
# README is run without any change here.
# Usage: utils/readme-commands.sh [--here] [--quick] [--list]
#   (default)  clone this checkout's HEAD (committed work only) into a temporary
#              folder and run the commands there: ./utils/demo.sh builds from scratch,
#              as on a user's first day (about 15 minutes on 2 cores without ccache).
#   --here     run in this checkout instead, which must be fresh: no results/ and
#              nothing modified or untracked (CI's own clean clone after
#              ./utils/test.sh, whose build/ and build-optimized/ are reused: nothing
#              is rebuilt).
#   --quick    shorten the long commands (flags appended; ns-3's CommandLine keeps
#              the last value): ./utils/demo.sh runs the default scenario at 8 GPUs and
#              1 % of the model (2 s instead of 25-45 s); ./utils/test.sh is skipped
#              (run it just before, as .ci/run does); the mpirun scenario moves 64 KiB
#              per rank pair instead of 8 MiB (about 2 s instead of minutes).
#   --list     print the commands, one per line, and exit.
# A command that needs the optimized MPI build (build-optimized/, mpirun) is skipped,
# saying so, when that build or mpirun is absent.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
here=0; quick=0; list=0
for a in "$@"; do
  case "$a" in
    --here) here=1 ;;
    --quick) quick=1 ;;
    --list) list=1 ;;
    *) echo "readme-commands: unknown argument '$a' (usage: utils/readme-commands.sh [--here] [--quick] [--list])" >&2
       exit 2 ;;
  esac
done

# The commands: every line of a ```sh block, continuation lines (ending in \) joined,
# comments (a # after a space) and blank lines dropped.
mapfile -t commands < <(awk '
  /^```sh[[:space:]]*$/ { inblock = 1; next }
  /^```/ { inblock = 0; next }
  inblock {
    line = $0
    if (line ~ /\\[[:space:]]*$/) { sub(/\\[[:space:]]*$/, "", line); pending = pending line " "; next }
    line = pending line; pending = ""
    sub(/(^|[[:space:]]+)#.*$/, "", line)
    gsub(/[[:space:]]+/, " ", line); sub(/^ /, "", line); sub(/ $/, "", line)
    if (line != "") print line
  }' "$top/README.md")
if [ ${#commands[@]} -eq 0 ]; then
  echo "readme-commands: no \`\`\`sh commands found in $top/README.md" >&2
  exit 1
fi
if [ $list -eq 1 ]; then
  printf '%s\n' "${commands[@]}"
  exit 0
fi

if [ $here -eq 1 ]; then
  dir=$top
  if [ -e "$dir/results" ] || [ -n "$(git -C "$dir" status --porcelain)" ]; then
    echo "readme-commands: $dir is not a fresh clone (results/ exists, or files are modified or untracked); run without --here, which clones" >&2
    exit 1
  fi
else
  tmp=$(mktemp -d "${TMPDIR:-/tmp}/readme-commands-XXXXXX")
  trap 'rm -rf "$tmp"' EXIT
  dir=$tmp/mlnet-sim
  git clone -q "$top" "$dir"
  echo "readme-commands: fresh clone of $(git -C "$dir" rev-parse --short HEAD) in $dir"
fi

cd "$dir"
# Open MPI refuses root unless told; the README's mpirun line is written for a user.
if [ "$(id -u)" -eq 0 ]; then
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fi
failed=0
n=${#commands[@]}
for i in "${!commands[@]}"; do
  cmd=${commands[$i]}
  run=$cmd
  skip=""
  if [ $quick -eq 1 ]; then
    case "$cmd" in
      ./utils/test.sh*) skip="--quick: the suite ran just before" ;;
      ./utils/demo.sh*) run="$cmd --gpus=8 --hbDomain=4 --scale=0.01 --iterations=1 --checkmateIterations=2" ;;
      *distributed-collective*) run="$cmd --bytes=64KiB" ;;
    esac
  fi
  if [[ "$cmd" == *build-optimized/* ]]; then
    bin=$(grep -o 'build-optimized/[^ ]*' <<<"$cmd" | head -n 1)
    if [ ! -x "$bin" ]; then
      skip="no $bin (./utils/test.sh --optimized builds it)"
    fi
  fi
  if [[ "$cmd" == mpirun* ]] && ! command -v mpirun >/dev/null; then
    skip="no mpirun on PATH (./utils/setup.sh --optimized installs Open MPI)"
  fi
  echo "[$((i + 1))/$n] \$ $run"
  if [ -n "$skip" ]; then
    echo "      skipped: $skip"
    continue
  fi
  start=$(date +%s%N)
  if bash -euo pipefail -c "$run"; then
    ds=$((($(date +%s%N) - start) / 100000000))
    echo "      ok, $((ds / 10)).$((ds % 10)) s"
  else
    status=$?
    echo "readme-commands: command $((i + 1)) of README.md failed (exit $status): $run" >&2
    failed=1
    break
  fi
done
exit $failed
