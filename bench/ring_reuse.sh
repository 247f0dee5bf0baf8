#!/usr/bin/env bash
# The cost of ring reuse on a program that does nothing but create and join
# threads (tests/runtime/programs/thread_churn.c, `joined N 8`): the target's
# wall time natively and recorded with `seer record --sync=inproc`, with 1024
# rings (after the first 1023 threads every claim scans up to 1024
# descriptors for a returned ring) and with 16 (scans of 16). Interleaved
# rounds, medians, ratios from the same run (docs/runtime.md, "Ring reuse").
# Usage: bench/ring_reuse.sh [BUILD_DIR] [THREADS] [ROUNDS]
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build} n=${2:-20000} rounds=${3:-5}
seer=$build/cli/seer prog=$build/tests/runtime/programs/thread_churn
[ -x "$seer" ] && [ -x "$prog" ] || { echo "ring_reuse: build seer and seer_runtime_test_programs first" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
now() { date +%s.%N; }
declare -A times
for r in $(seq 1 "$rounds"); do
  t0=$(now); "$prog" joined "$n" 8; t1=$(now)
  times[native]+="$(echo "$t1 - $t0" | bc) "
  for rings in 1024 16; do
    "$seer" record --sync=inproc -q --rings "$rings" -o "$work/t.seer" -- "$prog" joined "$n" 8
    # The target's own wall time, from the trace (the recorder's close is not the target's cost).
    w=$("$seer" info --json "$work/t.seer" | python3 -c '
import json, sys
i = json.load(sys.stdin)
assert i["lost_events"] == 0, i["lost"]
print(i["clock_span_ns"] / 1e9)')
    times[rings$rings]+="$w "
  done
done
median() { tr ' ' '\n' | grep -v '^$' | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
native=$(echo "${times[native]}" | median)
r1024=$(echo "${times[rings1024]}" | median)
r16=$(echo "${times[rings16]}" | median)
printf 'threads %d, %d rounds (median wall seconds of the target)\n' "$n" "$rounds"
printf '%-22s %8.3f\n' native "$native" "seer --rings 1024" "$r1024" "seer --rings 16" "$r16"
printf 'recorded/native: %.2f (1024 rings), %.2f (16 rings); 1024/16 rings: %.2f\n' \
  "$(echo "$r1024 / $native" | bc -l)" "$(echo "$r16 / $native" | bc -l)" "$(echo "$r1024 / $r16" | bc -l)"
