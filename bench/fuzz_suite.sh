#!/usr/bin/env bash
# seer fuzz over the race suite (tests/races/programs): each program is recorded
# once, analysed (hb, wcp, lockset), and every predicted pair is fuzzed for at
# most RUNS runs. Prints, per program, the pairs, how many were confirmed, and
# the cost of one scheduled run against one native run (median of 5 each, the
# scheduled run directed at the first pair), then the totals: the share of
# racy programs' pairs confirmed, and the confirmations in race-free programs
# (which must be 0). Needs root (seer record) and the suite built
# (ninja seer_race_programs).
# Usage: bench/fuzz_suite.sh [BUILD_DIR] [RUNS] [PROGRAM-NAME-FILTER]
set -euo pipefail
cd "$(dirname "$0")/.."
build=$(cd "${1:-build}" && pwd)
runs=${2:-100}
filter=${3:-}
seer=$build/cli/seer
programs=$build/tests/races/programs
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# Median wall time in ms of 5 runs of "$@" (environment from the caller).
median_ms() {
  local times=()
  for _ in 1 2 3 4 5; do
    local t0 t1
    t0=$(date +%s%N)
    "$@" >/dev/null 2>&1 || true
    t1=$(date +%s%N)
    times+=($(( (t1 - t0) / 1000 )))
  done
  printf '%s\n' "${times[@]}" | sort -n | sed -n 3p | awk '{printf "%.2f", $1 / 1000}'
}

printf '%-40s %6s %10s %10s %10s %7s\n' program pairs confirmed native_ms fuzz_ms ratio
racy_pairs=0 racy_confirmed=0 free_confirmed=0 worst_ratio=0
for src in tests/races/programs/*.c tests/races/programs/*.cc; do
  name=$(basename "${src%.*}")
  [[ -z "$filter" || "$name" == *$filter* ]] || continue
  bin=$programs/$name
  [ -x "$bin" ] || { echo "$name: not built (ninja -C $build seer_race_programs)" >&2; exit 2; }
  "$seer" record --sync=inproc -o "$work/t.seer" -- "$bin" >/dev/null 2>&1 || true
  "$seer" analyze -a hb,wcp,lockset --format json -o "$work/r.json" "$work/t.seer" 2>/dev/null
  "$seer" fuzz --pairs "$work/r.json" --runs "$runs" --timeout 3 --format json -o "$work/f.json" -- "$bin"
  read -r pairs confirmed first < <(python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))["fuzz"]["pairs"]
first = "%x,%x" % (d[0]["statements"][0]["offset"], d[0]["statements"][1]["offset"]) if d else "-"
print(len(d), sum(1 for p in d if p["confirmed"]), first)' "$work/f.json")
  native=$(median_ms "$bin")
  fuzzed=-
  ratio=-
  if [ "$first" != "-" ]; then
    fuzzed=$(SEER_FUZZ="1,$first" SEER_FUZZ_OUT=/dev/null median_ms "$bin")
    ratio=$(awk -v f="$fuzzed" -v n="$native" 'BEGIN { printf "%.2f", f / n }')
    worst_ratio=$(awk -v r="$ratio" -v w="$worst_ratio" 'BEGIN { print (r > w ? r : w) }')
  fi
  printf '%-40s %6s %10s %10s %10s %7s\n' "$name" "$pairs" "$confirmed" "$native" "$fuzzed" "$ratio"
  if [[ "$name" == race_* ]]; then
    racy_pairs=$((racy_pairs + pairs))
    racy_confirmed=$((racy_confirmed + confirmed))
  else
    free_confirmed=$((free_confirmed + confirmed))
  fi
done
echo "racy programs: $racy_confirmed of $racy_pairs pairs confirmed within $runs runs each"
echo "race-free programs: $free_confirmed pairs confirmed (must be 0)"
echo "worst scheduled/native run time ratio: $worst_ratio"
