#!/usr/bin/env bash
# Recorder benchmark (root needed): prints
#  1. seer's probe cost per call against an empty uprobe on the same functions;
#  2. the sustained sync-event rate of a lock loop under `seer record`, and its loss;
#  3. slowdown, native vs recorded, of a lock-heavy and a compute-heavy program.
# Usage: bench/record_bench.sh [BUILD_DIR]   (RATE_SECONDS=60 for the long rate run)
set -euo pipefail
build=${1:-build}
seer=$build/cli/seer
target=$build/bench/recorder/seer_bench_target
rate_seconds=${RATE_SECONDS:-10}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

seconds() { sed -n 's/.*seconds=\([0-9.]*\).*/\1/p'; }
meta() { "$build/tests/recorder/seer_trace_counts" "$1" | sed -n "s/^meta $2 = //p"; }

echo "== 1. probe cost (pthread_mutex_lock/unlock, 200k pairs) =="
"$build/bench/recorder/seer_uprobe_cost" 200000

echo "== 2. sustained rate: 2 threads locking for ${rate_seconds}s under seer record =="
out=$("$seer" record --sync=ebpf -o "$tmp/rate.seer" -- "$target" rate 2 "$rate_seconds" 2>"$tmp/rate.err")
pairs=$(echo "$out" | sed -n 's/pairs=\([0-9]*\).*/\1/p')
secs=$(echo "$out" | seconds)
cat "$tmp/rate.err"
awk -v p="$pairs" -v s="$secs" 'BEGIN { printf "sync events/s      %.0f (2 per pair)\n", 2 * p / s }'
"$build/tests/recorder/seer_trace_counts" "$tmp/rate.seer" | grep -E '^lost' || echo "lost events        0"

echo "== 3. slowdown, native vs recorded (wall time of the workload itself) =="
for w in "locks 2 100000" "compute 300000000"; do
  native=$("$target" $w | seconds)
  recorded=$("$seer" record -q --sync=ebpf -o "$tmp/w.seer" -- "$target" $w | seconds)
  awk -v w="$w" -v n="$native" -v r="$recorded" \
    'BEGIN { printf "%-20s native %.3fs  recorded %.3fs  slowdown %.2fx\n", w, n, r, r / n }'
done
