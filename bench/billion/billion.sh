#!/usr/bin/env bash
# Billions of events (issue 16): records bench/billion/lock_pairs.c (THREADS
# threads, 18 events per operation, no finding but one race) in-process, checks
# the trace with `seer info` (which decodes and verifies every chunk), and runs
# `seer analyze --analysis hb,wcp,deadlock,atomicity` on it. For each step it
# prints wall time, CPU time (user + sys) and peak RSS from /usr/bin/time -v.
# The trace (about 0.5 byte per event: 1 GB for 2 billion) goes to DIR and is
# deleted at the end unless KEEP=1.
# Usage: bench/billion/billion.sh [BUILD_DIR=build] [EVENTS=2000000000] [DIR=/work/big]
#   ANALYSES=... overrides the analyses; THREADS=4 the thread count;
#   TRACE=FILE analyses (and checks) an existing trace instead of recording one.
set -euo pipefail
cd "$(dirname "$0")/../.."
build=$(realpath "${1:-build}")
events=${2:-2000000000}
dir=${3:-/work/big}
threads=${THREADS:-4}
analyses=${ANALYSES:-hb,wcp,deadlock,atomicity}
seer=$build/cli/seer
mkdir -p "$dir"
work=$(mktemp -d "$dir/billion.XXXXXX")
trace=${TRACE:-$work/trace.seer}
if [[ ${KEEP:-0} == 1 ]]; then trap 'echo "kept $trace"' EXIT; else trap 'rm -rf "$work"' EXIT; fi

# 18 events per operation as recorded (`seer info` on `lock_pairs 1 1000`: 2
# acquires, 2 releases, 4 writes, 10 reads: the four words, the mutexes read as
# objects (docs/runtime.md, "Synchronisation objects as memory"), the globals).
per_op=18
ops=$(( (events + per_op * threads - 1) / (per_op * threads) ))
[[ -n ${TRACE:-} ]] || "$build/tools/seer-cc" -O2 -g bench/billion/lock_pairs.c -o "$work/lock_pairs" -lpthread

step() {  # name command...
  local name=$1
  shift
  /usr/bin/time -v -o "$work/time.$name" "$@" >"$work/out.$name" 2>"$work/err.$name" || {
    echo "$name failed:" >&2
    tail -5 "$work/err.$name" >&2
    exit 1
  }
  awk -v n="$name" -F': ' '
    /User time/ { u = $2 } /System time/ { s = $2 } /Maximum resident/ { r = $2 }
    /Elapsed \(wall clock\)/ { w = $2; k = split(w, p, ":"); secs = 0; for (i = 1; i <= k; ++i) secs = secs * 60 + p[i] }
    END { printf "%-10s wall %9.1f s   cpu %9.1f s   peak RSS %8.1f MiB\n", n, secs, u + s, r / 1024 }' "$work/time.$name"
}

[[ -n ${TRACE:-} ]] || echo "threads $threads, $ops operations each (about $((ops * threads * per_op)) events), analyses $analyses"
if [[ -z ${TRACE:-} ]]; then
  step record "$seer" record -q --sync=inproc -o "$trace" -- "$work/lock_pairs" "$threads" "$ops"
fi
echo "trace $(du -h "$trace" | cut -f1)"
step info "$seer" info "$trace"
grep -E '^(events|complete):' "$work/out.info"
step analyze "$seer" analyze --analysis "$analyses" "$trace"
grep -E '^[a-z0-9 -]+: [0-9]' "$work/out.analyze" || true
