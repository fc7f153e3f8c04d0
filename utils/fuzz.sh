#!/usr/bin/env bash
# Builds the libFuzzer targets (fuzz/, one per input parser) in build-fuzz/ with clang,
# ASan and UBSan, and fuzzes each for a bounded time, starting from the shipped
# inputs (each target's fuzz/<name>.seeds in the build folder). A finding is any
# crash, sanitizer report, exception other than std::invalid_argument, input slower
# than --timeout or memory past --rss-mb; the script then names the reproducer file
# and exits 1. Details: contrib/mlnet/doc/fuzzing.md.
# Usage: utils/fuzz.sh [--seconds=N] [--timeout=S] [--rss-mb=M] [TARGET...] [-- LIBFUZZER-FLAGS...]
#   --seconds=N   fuzz each target N seconds (default 10; a long run: --seconds=600)
#   --timeout=S   an input running longer than S seconds is a finding (default 10)
#   --rss-mb=M    memory past M MB is a finding (default 2048)
#   TARGET        e.g. training-workload (default: every target, in fuzz/targets.txt)
#   -- ...        passed to every libFuzzer run (e.g. -jobs=2 -workers=2, -seed=1)
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
seconds=10; timeout=10; rss=2048; targets=(); extra=()
usage="usage: utils/fuzz.sh [--seconds=N] [--timeout=S] [--rss-mb=M] [TARGET...] [-- FLAGS...]"
positive() {
  [[ "$2" =~ ^[1-9][0-9]{0,6}$ ]] || { echo "fuzz: $1 must be a positive integer, got '$2'" >&2; exit 2; }
}
while [ $# -gt 0 ]; do
  case "$1" in
    --seconds=*) seconds=${1#*=}; positive --seconds "$seconds" ;;
    --timeout=*) timeout=${1#*=}; positive --timeout "$timeout" ;;
    --rss-mb=*) rss=${1#*=}; positive --rss-mb "$rss" ;;
    -h | --help) echo "$usage"; exit 0 ;;
    --) shift; extra=("$@"); break ;;
    -*) echo "fuzz: unknown option '$1' ($usage)" >&2; exit 2 ;;
    *) targets+=("$1") ;;
  esac
  shift
done

"$top/utils/setup.sh" --fuzz >&2
build_targets=(fuzz)
if [ ${#targets[@]} -gt 0 ]; then build_targets=("${targets[@]/#/fuzz-}"); fi
for t in "${targets[@]}"; do
  if [ ! -f "$top/fuzz/$t.cc" ]; then
    echo "fuzz: no target '$t'; the targets are:" \
         $(cd "$top/fuzz" && ls -- *.cc | sed 's/\.cc$//') >&2
    exit 2
  fi
done
dir=$("$top/utils/build.sh" --fuzz "${build_targets[@]}" | tail -n 1)
if [ ${#targets[@]} -eq 0 ]; then mapfile -t targets <"$dir/fuzz/targets.txt"; fi

export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1
export LSAN_OPTIONS=suppressions="$top/utils/lsan.supp"
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
failed=()
for t in "${targets[@]}"; do
  corpus="$dir/fuzz/corpus/$t"; findings="$dir/fuzz/findings/$t"; log="$dir/fuzz/$t.log"
  mkdir -p "$corpus" "$findings"
  # The seeds are the shipped files, copied into the working corpus (which keeps what
  # earlier runs found); the dictionary is the JSON keys the seeds use.
  while read -r seed; do
    [ -n "$seed" ] && cp -f "$seed" "$corpus/seed-$(basename "$seed")"
  done <"$dir/fuzz/$t.seeds"
  python3 - "$dir/fuzz/$t.seeds" "$top/fuzz/$t.dict" >"$dir/fuzz/$t.dict" <<'PY'
import json, pathlib, sys
seeds, fixed = sys.argv[1], pathlib.Path(sys.argv[2])
entries = ['"{"', '"}"', '"["', '"]"', '":"', '","', '"true"', '"false"', '"null"',
           '"-1"', '"0.5"', '"1e308"', '"18446744073709551615"', '"4294967296"']
keys = set()
def walk(v):
    if isinstance(v, dict):
        for k, x in v.items():
            keys.add(k); walk(x)
    elif isinstance(v, list):
        for x in v:
            walk(x)
for line in open(seeds).read().split("\n"):
    try:
        walk(json.loads(pathlib.Path(line).read_text()))
    except (OSError, ValueError):
        pass
entries += [json.dumps(json.dumps(k)) for k in sorted(keys) if k.isprintable()]
if fixed.is_file():
    entries += [l for l in fixed.read_text().split("\n") if l.startswith('"')]
print("\n".join(entries))
PY
  start=$(date +%s)
  set +e
  "$dir/fuzz/fuzz-$t" -max_total_time="$seconds" -timeout="$timeout" -rss_limit_mb="$rss" \
    -dict="$dir/fuzz/$t.dict" -artifact_prefix="$findings/" -print_final_stats=1 \
    "${extra[@]}" "$corpus" >"$log" 2>&1
  rc=$?
  set -e
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
  if [ $rc -eq 0 ]; then
    echo "fuzz: $t: ${runs:-?} inputs in $(( $(date +%s) - start )) s, no finding" \
         "(corpus $(ls "$corpus" | wc -l) files)"
  else
    failed+=("$t")
    repro=$(sed -n 's/.*Test unit written to //p' "$log" | tail -n 1)
    echo "fuzz: $t: FINDING (exit $rc); log $log" >&2
    grep -E '^(==[0-9]+==ERROR|SUMMARY|fuzz: invariant|terminate called|  what\(\)|aborted\.|assert failed|msg=)|runtime error' \
      "$log" | head -n 6 >&2 || true
    if [ -n "$repro" ]; then
      echo "fuzz: $t: reproducer $repro (rerun: $dir/fuzz/fuzz-$t $repro)" >&2
    fi
  fi
done
if [ ${#failed[@]} -gt 0 ]; then
  echo "fuzz: findings in ${failed[*]}" >&2
  exit 1
fi
