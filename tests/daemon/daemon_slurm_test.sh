#!/usr/bin/env bash
# `seer daemon` with a [slurm] table: each window's analysis runs as a Slurm
# job step (srun) on a node of a real one-node cluster (tests/support/
# slurm_cluster.sh: munged with a key of the test's own, slurmctld and slurmd
# on localhost), the windows in the cluster's shared folder:
#   - the daemon says at its start how analyses are started;
#   - the launched program's deadlock reaches /metrics and /findings, and the
#     same window analysed by `seer analyze` here finds it too;
#   - the analyses were job steps: jobs named seer-window, completed;
#   - a partition the cluster does not have: srun's own message in the
#     daemon's log, the window counted as failed, the daemon still serving.
# Usage: daemon_slurm_test.sh SEER PROGRAM
# Needs root (the cluster's daemons run as root); exits 77 (skipped) otherwise.
set -euo pipefail
seer=$1 program=$2
here=$(cd "$(dirname "$0")" && pwd)
if [ "$(id -u)" -ne 0 ]; then
  echo "NOT RUN: daemon_slurm_test needs root (munged, slurmctld and slurmd run as root)" >&2
  exit 77
fi
tmp=$(mktemp -d /tmp/seer-daemon-slurm.XXXXXX)
source "$here/daemon_lib.sh"
source "$here/../support/slurm_cluster.sh"
pids=()
cleanup() {
  local rc=$?
  kill_daemon
  [ $rc -eq 0 ] || slurm_cluster_logs "$tmp"
  slurm_cluster_stop
  rm -rf "$tmp"
  exit $rc
}
trap cleanup EXIT
trap 'exit 1' INT TERM

start_slurm_cluster "$tmp"
shared=$tmp/shared

# config DIR PARTITION: a configuration whose analyses go to the cluster.
config() {
  cat >"$shared/$2.toml" <<CONF
dir = "$shared/$1"
window = "1s"
duty = "continuous"
analyses = "deadlock"

[slurm]
partition = "$2"
args = ["--time=5"]

[[target]]
command = ["$program"]
CONF
  echo "$shared/$2.toml"
}

start_daemon "$tmp/daemon.log" --config "$(config windows test)"
grep -qF "window analyses run on the Slurm cluster: srun --quiet --nodes=1 --ntasks=1 --job-name=seer-window --partition=test --time=5 $(readlink -f "$seer") __analyze-window" "$tmp/daemon.log" ||
  fail "the daemon did not say how its analyses start"
wait_for 60 "the target to exit" grep -q 'exited (status 0)' "$tmp/daemon.log"
wait_for 120 "a deadlock among the findings" positive 'seer_findings{kind="deadlock"'
curl -sf "http://127.0.0.1:$port/findings" >"$tmp/findings.json" || fail "GET /findings failed"
grep -q 'lock_inversion_concurrent.c' "$tmp/findings.json" || fail "/findings names no line of the program: $(head -c 600 "$tmp/findings.json")"
[ "$(metric 'seer_windows_failed_total{stage="analysis"}')" = 0 ] || fail "an analysis failed"

# Job steps of the cluster: one job per analysed window, all completed.
scontrol -o show job >"$tmp/jobs" 2>&1 || true
jobs=$(grep -c 'JobName=seer-window ' "$tmp/jobs" || true)
[ "$jobs" -ge 1 ] || fail "no job named seer-window on the cluster: $(cat "$tmp/jobs")"
if grep 'JobName=seer-window ' "$tmp/jobs" | grep -v -q 'JobState=COMPLETED'; then
  fail "a seer-window job did not complete: $(grep 'JobName=seer-window ' "$tmp/jobs")"
fi
# The same windows analysed here: a deadlock in one of them too.
found=0
for w in "$shared"/windows/*.seer; do
  "$seer" analyze -a deadlock "$w" >"$tmp/local.txt" 2>&1 || fail "seer analyze $w: $(cat "$tmp/local.txt")"
  grep -q '^deadlocks: [1-9]' "$tmp/local.txt" && found=1
done
[ $found = 1 ] || fail "no window analysed here has the deadlock the cluster found"
echo "$jobs window analyses ran as Slurm jobs; the deadlock is among the findings"
kill -TERM "$daemon_pid"
wait "$daemon_pid" || fail "seer daemon exited $? after SIGTERM"
daemon_pid=

# A partition the cluster does not have: srun refuses, its message in the log.
start_daemon "$tmp/daemon.log" --config "$(config bad nosuch)"
wait_for 120 "an analysis counted as failed" positive 'seer_windows_failed_total{stage="analysis"}'
grep -q "cannot analyse .*srun (its job step's messages are in the daemon's log) exited with status" "$tmp/daemon.log" ||
  fail "no clear message for the failed srun"
grep -qi 'srun: error' "$tmp/daemon.log" || fail "srun's own message is not in the daemon's log"
curl -sf "http://127.0.0.1:$port/metrics" >/dev/null || fail "the daemon stopped serving after a failed analysis"
kill -TERM "$daemon_pid"
wait "$daemon_pid" || fail "seer daemon exited $? after SIGTERM (bad partition)"
daemon_pid=
echo "daemon slurm test: passed"
