#!/usr/bin/env bash
# Cost of the default analyses as the number of threads grows (issue: 1000
# threads, every default analysis within 1 s). Two kinds of traces:
#   - recorded: bench/threads/one_lock_threads.c, N threads each taking one mutex
#     100 times around a shared counter, built with seer-cc and recorded in-process;
#   - generated: `seer gen` traces of a fixed length with 10 .. 10000 threads
#     (4 locks, 1000 variables, 4000 access sites).
# For each trace and analysis: CPU seconds (user+sys), ns per event and peak RSS,
# one analysis per process. The machine is shared: compare rows of one run.
# Usage: bench/threads/thread_scaling.sh [BUILD_DIR] [EVENTS=1000000]
set -euo pipefail
cd "$(dirname "$0")/../.."
build=$(realpath "${1:-build}")
events=${2:-1000000}
seer=$build/cli/seer
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# atomicity runs on the recorded traces only: on generated traces (random
# accesses at thousands of sites) its cost is that of the feasibility checks of
# the thousands of violations it finds (about 1 ms each), whatever the thread count.
analyses=(hb shb wcp lockset w3-linear deadlock)

measure() {  # trace label events analyses...
  local trace=$1 label=$2 n=$3
  shift 3
  for a in "$@"; do
    /usr/bin/time -f "%U %S %M" -o "$work/time" "$seer" analyze --analysis "$a" "$trace" >/dev/null
    read -r user sys rss <"$work/time"
    awk -v l="$label" -v a="$a" -v u="$user" -v s="$sys" -v r="$rss" -v n="$n" \
      'BEGIN { c = u + s; printf "%-26s %-10s %8.2f %10.0f %9.0f\n", l, a, c, c * 1e9 / n, r / 1024 }'
  done
}
events_of() { "$seer" info --json "$1" | sed -n 's/^  "events": *\([0-9]*\).*/\1/p' | head -1; }

printf "%-26s %-10s %8s %10s %9s\n" trace analysis "CPU s" "ns/event" "RSS MiB"
"$build/tools/seer-cc" -O1 -g bench/threads/one_lock_threads.c -o "$work/one_lock_threads" -lpthread
for n in 100 1000; do
  "$seer" record -q --sync=inproc -o "$work/rec$n.seer" -- "$work/one_lock_threads" "$n" 100 >/dev/null
  measure "$work/rec$n.seer" "recorded, $n threads" "$(events_of "$work/rec$n.seer")" "${analyses[@]}" atomicity
done
for n in 10 100 1000 10000; do
  "$seer" gen --events "$events" --threads "$n" --locks 4 --vars 1000 --locations 4000 --seed 1 \
    -o "$work/gen$n.seer"
  measure "$work/gen$n.seer" "gen, $n threads" "$events" "${analyses[@]}"
  rm -f "$work/gen$n.seer"
done
