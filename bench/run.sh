#!/usr/bin/env bash
# Runs every benchmark and prints its figures (`make bench`). The machine is shared
# and noisy: compare figures measured in one run, and prefer the CPU-time columns.
# Recorder and runtime benchmarks attach uprobes / record real processes: root.
# Usage: bench/run.sh [BUILD_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
gbench() {  # a Google Benchmark binary, tabular counters
  local bin=$build/bench/$1; shift
  echo "== $(basename "$bin") =="
  "$bin" --benchmark_counters_tabular=true "$@"
  echo
}

gbench seer_decode_bench                 # trace store: full decode, bytes/event (issue targets: 100M events/s, <= 4 B)
gbench seer_std_import_bench             # STD import lines/s (target 5M)
if [ -x "$build/bench/seer_analyze_bench" ]; then gbench seer_analyze_bench; fi
gbench seer_engines_bench                # race engines on in-memory batches
gbench seer_w3_bench
gbench seer_seqcheck_bench
echo "== SeqCheck on issue #33's 3M-event trace =="
bash bench/seqcheck_speed.sh "$build"
echo
echo "== seer analyze --jobs 1 vs 2, default analyses of a 100M-event generated trace =="
bash bench/jobs_speed.sh "$build"
echo
echo "== seer analyze --shard I/N + seer merge: total CPU of 1, 2, 4 shards vs one run (10M events) =="
bash bench/shard_cost.sh "$build"
echo

if [ "$(id -u)" -ne 0 ]; then
  echo "SKIPPED: recorder and runtime benchmarks need root (uprobes, recording)" >&2
  exit 0
fi
echo "== recorder (eBPF) =="
bash bench/record_bench.sh "$build"
echo
echo "== a recorded program's forks (each child followed into a trace of its own) =="
bash bench/recorder/fork_cost.sh "$build"
echo
echo "== runtime (seer --sync=inproc vs native vs ThreadSanitizer) =="
"$build/bench/runtime/seer_runtime_bench" 2 2000000 3 shared
echo
"$build/bench/runtime/seer_runtime_bench" 4 600000 3 private
