#!/usr/bin/env bash
# seer record --watch on the service-like counter of tests/runtime/programs/
# watch_counter.c (two workers, a lock-protected update and a statistics counter
# per iteration, for 2 s): per program, how many of RUNS recordings caught a race
# and how many samples they took, and what the recording cost the program, as
# its own count of iterations against the same binary run without seer,
# interleaved run by run.
#   racy     counter++ outside the lock         every run should catch it
#   locked   counter++ under the lock           no run may give a race
#   atomic   a relaxed atomic add               no run may give a race
# Builds: seer-cc (gcc, clang) as the tests build them, and the plain gcc build
# of the same source for the hooks' own cost.
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

iterations() { sed -n 's/^guarded=\([0-9]*\).*/\1/p'; }

printf '%-12s %5s %7s %12s %12s %10s\n' program runs caught samples/run "native it/s" "watched"
for entry in racy:watch_counter_gcc racy-clang:watch_counter_clang locked:watch_counter_locked \
             atomic:watch_counter_atomic; do
  name=${entry%%:*}
  bin=$programs/${entry#*:}
  caught=0 samples=0 native_total=0 watched_total=0
  for ((i = 0; i < runs; i++)); do
    native=$("$bin" "$ms" | iterations)
    "$seer" record --sync=none --watch -o "$work/t.seer" -- "$bin" "$ms" >"$work/out" 2>"$work/err" || {
      cat "$work/err"; exit 1; }
    watched=$(iterations <"$work/out")
    "$seer" analyze --analysis watch "$work/t.seer" >"$work/report"
    if grep -q "WARNING: data race (caught" "$work/report"; then caught=$((caught + 1)); fi
    n=$(sed -n "s/.*'s time: \([0-9]*\) samples.*/\1/p" "$work/err")
    samples=$((samples + ${n:-0}))
    native_total=$((native_total + native))
    watched_total=$((watched_total + watched))
  done
  printf '%-12s %5s %7s %12s %12s %9s%%\n' "$name" "$runs" "$caught" "$((samples / runs))" \
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
