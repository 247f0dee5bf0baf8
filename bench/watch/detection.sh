#!/usr/bin/env bash
# seer record --watch on the service-like programs of tests/runtime/programs/:
# watch_counter.c (two workers, a lock-protected update and a statistics counter
# per iteration) and watch_config.c (a configuration word one thread rewrites
# every 50 us while two workers read it per request), for SECONDS: per program, how many of RUNS recordings caught a race
# and how many samples they took, and what the recording cost the program, as
# its own count of iterations against the same binary run without seer,
# interleaved run by run.
#   racy     counter++ outside the lock         every run should catch it
#   locked   counter++ under the lock           no run may give a race
#   atomic   a relaxed atomic add               no run may give a race
#   config   plain loads and stores of the word  should be caught
#            (-locked: under a lock; -atomic: C11 relaxed loads and stores,
#            plain moves in the unmodified build, set aside by their DWARF type)
# Builds: seer-cc (gcc, clang) as the tests build them, sampled by their hooks;
# the plain gcc -O1 -g build (the tests' watch_counter_plain*), sampled by the
# preloaded runtime's CPU-time timer, with nothing else recorded and beside the
# preloaded runtime's synchronisation recording (against that recording alone);
# and the plain build against the seer-cc one for the hooks' own cost.
# Usage: bench/watch/detection.sh [BUILD_DIR] [RUNS] [SECONDS]
set -euo pipefail
cd "$(dirname "$0")/../.."
build=$(cd "${1:-build}" && pwd)
runs=${2:-20}
seconds=${3:-2}
seer=$build/cli/seer
programs=$build/tests/runtime/programs
ms=$((seconds * 1000))
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
gcc -O1 -g -pthread tests/runtime/programs/watch_counter.c -o "$work/plain"

# The program's own count of work done: watch_counter's locked updates, watch_config's requests.
iterations() { sed -n 's/^\(guarded\|requests\)=\([0-9]*\).*/\2/p'; }

# Each entry: name, binary, seer record options; the baseline is the binary
# run without seer, or (a fourth field) recorded with those options instead.
entries=(
  "racy|watch_counter_gcc|--sync=none --watch"
  "racy-clang|watch_counter_clang|--sync=none --watch"
  "locked|watch_counter_locked|--sync=none --watch"
  "atomic|watch_counter_atomic|--sync=none --watch"
  "plain-racy|watch_counter_plain|--sync=none --watch"
  "plain-locked|watch_counter_plain_locked|--sync=none --watch"
  "plain-atomic|watch_counter_plain_atomic|--sync=none --watch"
  "plain-racy+sync|watch_counter_plain|--sync=preload --watch|--sync=preload"
  "config|watch_config_gcc|--sync=none --watch"
  "config-locked|watch_config_locked|--sync=none --watch"
  "config-atomic|watch_config_atomic|--sync=none --watch"
  "plain-config|watch_config_plain|--sync=none --watch"
  "plain-config-lck|watch_config_plain_locked|--sync=none --watch"
  "plain-config-atm|watch_config_plain_atomic|--sync=none --watch"
)
printf '%-16s %5s %7s %12s %14s %10s\n' program runs caught samples/run "baseline it/s" "watched"
for entry in "${entries[@]}"; do
  IFS='|' read -r name binary options baseline <<<"$entry"
  bin=$programs/$binary
  caught=0 samples=0 native_total=0 watched_total=0
  for ((i = 0; i < runs; i++)); do
    if [[ -z $baseline ]]; then
      native=$("$bin" "$ms" | iterations)
    else
      # shellcheck disable=SC2086
      native=$("$seer" record -q $baseline -o "$work/b.seer" -- "$bin" "$ms" | iterations)
    fi
    # shellcheck disable=SC2086
    "$seer" record $options -o "$work/t.seer" -- "$bin" "$ms" >"$work/out" 2>"$work/err" || {
      cat "$work/err"; exit 1; }
    watched=$(iterations <"$work/out")
    "$seer" analyze --analysis watch "$work/t.seer" >"$work/report"
    if grep -q "WARNING: data race (caught" "$work/report"; then caught=$((caught + 1)); fi
    n=$(sed -n "s/.*'s time: \([0-9]*\) samples.*/\1/p" "$work/err")
    samples=$((samples + ${n:-0}))
    native_total=$((native_total + native))
    watched_total=$((watched_total + watched))
  done
  printf '%-16s %5s %7s %12s %14s %9s%%\n' "$name" "$runs" "$caught" "$((samples / runs))" \
    "$((native_total / runs / seconds))" "$(awk -v a="$watched_total" -v b="$native_total" 'BEGIN { printf "%.1f", 100 * a / b }')"
done
echo
echo "The hooks' own cost (seer-cc build, not recorded, against the plain gcc build), interleaved:"
plain_total=0 hooks_total=0
for ((i = 0; i < runs; i++)); do
  plain_total=$((plain_total + $("$work/plain" "$ms" | iterations)))
  hooks_total=$((hooks_total + $("$programs/watch_counter_gcc" "$ms" | iterations)))
done
printf '  plain %d it/s, seer-cc %d it/s: %s%%\n' "$((plain_total / runs / seconds))" \
  "$((hooks_total / runs / seconds))" "$(awk -v a="$hooks_total" -v b="$plain_total" 'BEGIN { printf "%.1f", 100 * a / b }')"
