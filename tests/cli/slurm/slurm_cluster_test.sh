#!/usr/bin/env bash
# `seer analyze --shard` on a real Slurm cluster of one node: munged with a key
# made for the test, slurmctld and slurmd on localhost with a slurm.conf of the
# test's own (free ports, state in a temporary folder), the job array of
# tools/slurm/ on a recorded trace, and its merged report compared byte for
# byte with one `seer analyze` (JSON and text). Everything it started is
# stopped and its folder removed at the end, whatever happens.
#
# usage: slurm_cluster_test.sh SEER PROGRAM SLURM_TOOLS_DIR
# Needs root (the daemons run as root); exits 77 (skipped) otherwise.
set -euo pipefail

seer=$1 program=$2 tools=$3
if [ "$(id -u)" -ne 0 ]; then
  echo "NOT RUN: slurm_cluster_test needs root (munged, slurmctld and slurmd run as root)" >&2
  exit 77
fi
tmp=$(mktemp -d /tmp/seer-slurm.XXXXXX)
pids=()
cleanup() {
  local rc=$?
  if [ $rc -ne 0 ]; then
    slurm_cluster_logs "$tmp"
    for log in "$tmp"/shared/*.log; do
      [ -f "$log" ] && { echo "--- $log"; tail -n 30 "$log"; }
    done
  fi
  # Only the daemons this test started, by their pids.
  slurm_cluster_stop
  rm -rf "$tmp"
  exit $rc
}
trap cleanup EXIT
trap 'exit 1' INT TERM

fail() { echo "FAIL: $*" >&2; exit 1; }
wait_for() {  # SECONDS WHAT COMMAND...
  local deadline=$((SECONDS + $1)) what=$2
  shift 2
  until "$@" >/dev/null 2>&1; do
    [ $SECONDS -lt $deadline ] || fail "$what"
    sleep 0.2
  done
}
source "$(dirname "$0")/../../support/slurm_cluster.sh"

start_slurm_cluster "$tmp"

# The trace: a small program recorded (two threads take two locks in
# opposite orders: a deadlock predicted, its stacks symbolised in the report,
# so the merge reads the trace and the program's debug information).
shared=$tmp/shared
(cd "$shared" && "$seer" record -o run.seer -- "$program" >/dev/null)
trace=$shared/run.seer
[ -s "$trace" ] || fail "seer record wrote no trace"
# Options reach the shards (and must be the same in every part). The SeqCheck
# windows spread over shards are seer_shard_tests' (a window cut through this
# small trace's cycle would hide it).
options=(--deadlock-max-cycle 4 --jobs 1)
"$seer" analyze "$trace" "${options[@]}" --format json -o "$shared/single.json"
"$seer" analyze "$trace" "${options[@]}" -o "$shared/single.txt"
grep -q '^deadlocks: 1$' "$shared/single.txt" || fail "one run predicts no deadlock: $(cat "$shared/single.txt")"
grep -q 'lock_inversion_concurrent.c:[0-9]' "$shared/single.txt" || fail "one run's report has no source line"

n=3
out=$(SEER=$seer "$tools/seer-slurm-analyze" -n $n -d "$shared/json" --format json "$trace" -- "${options[@]}") ||
  fail "seer-slurm-analyze: $out"
echo "$out"
merge_json=$(sed -n 's/.*merge: job \([0-9]*\).*/\1/p' <<<"$out")
out=$(SEER=$seer "$tools/seer-slurm-analyze" -n $n -d "$shared/text" "$trace" -- "${options[@]}") ||
  fail "seer-slurm-analyze: $out"
echo "$out"
merge_text=$(sed -n 's/.*merge: job \([0-9]*\).*/\1/p' <<<"$out")

job_state() { scontrol -o show job "$1" | sed -n 's/.*JobState=\([A-Z_]*\).*/\1/p' | head -n 1; }
finished() { case $(job_state "$1") in COMPLETED | FAILED | CANCELLED | TIMEOUT | NODE_FAIL | OUT_OF_MEMORY) return 0 ;; esac; return 1; }
for job in "$merge_json" "$merge_text"; do
  wait_for 120 "merge job $job did not finish (state $(job_state "$job"))" finished "$job"
  [ "$(job_state "$job")" = COMPLETED ] || fail "merge job $job: $(job_state "$job")"
done

for i in $(seq 0 $((n - 1))); do
  [ -s "$shared/json/part-$i.json" ] || fail "no part $i"
  [ "$(stat -c %a "$shared/json/part-$i.json")" = 600 ] || fail "part $i is not 0600"
done
cmp "$shared/single.json" "$shared/json/report.json" || fail "the merged JSON report differs from one run's"
cmp "$shared/single.txt" "$shared/text/report.text" || fail "the merged text report differs from one run's"
echo "PASS: $n shards on Slurm merge to one run's JSON and text reports"
