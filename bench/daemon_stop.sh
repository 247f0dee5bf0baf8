#!/usr/bin/env bash
# How long `seer daemon` takes to stop on SIGTERM with windows queued for
# analysis, as under load: it records tests/programs/daemon_target in 1 s
# windows, continuously, with `-a deadlock,hb,wcp,atomicity`, while BUSY
# loops at normal priority keep the idle-priority analysis starved. After
# RECORD_SECONDS it reads seer_windows_queued, sends SIGTERM and measures until
# the daemon exits (at most STOP_LIMIT s, then SIGKILL: what systemd's stop
# timeout does). Each seer binary given is measured in turn, same settings.
#
#   bench/daemon_stop.sh DAEMON_TARGET SEER [SEER...]
#     RECORD_SECONDS=15  BUSY=2  STOP_LIMIT=60
set -euo pipefail
target=$1; shift
secs=${RECORD_SECONDS:-15}
busy=${BUSY:-2}
limit=${STOP_LIMIT:-60}
tmp=$(mktemp -d)
busy_pids=()
daemon_pid=
cleanup() {
  for p in "${busy_pids[@]}" $daemon_pid; do kill -9 "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$tmp"
}
trap cleanup EXIT

for seer in "$@"; do
  rm -rf "$tmp/w"
  "$seer" daemon --listen 127.0.0.1:0 --dir "$tmp/w" --window 1s --duty continuous -a deadlock,hb,wcp,atomicity \
    -- "$target" 2> "$tmp/log" &
  daemon_pid=$!
  port=
  for _ in $(seq 1 100); do
    port=$(sed -n 's|.*listening on http://127.0.0.1:\([0-9]*\)/.*|\1|p' "$tmp/log" | head -1)
    [ -n "$port" ] && break
    sleep 0.1
  done
  [ -n "$port" ] || { cat "$tmp/log" >&2; echo "daemon_stop: $seer did not start" >&2; exit 2; }
  for _ in $(seq 1 "$busy"); do (while :; do :; done) & busy_pids+=($!); done
  sleep "$secs"
  metrics=$(curl -sf "http://127.0.0.1:$port/metrics")
  queued=$(awk '/^seer_windows_queued /{print $2}' <<<"$metrics")
  written=$(awk '/^seer_windows_written_total/{s+=$NF} END{print s+0}' <<<"$metrics")
  analysed=$(awk '/^seer_windows_analysed_total /{print $2}' <<<"$metrics")
  target_pid=$(pgrep -P "$daemon_pid" -f "$(basename "$target")" || true)
  start=$(date +%s%N)
  kill -TERM "$daemon_pid"
  end=$((SECONDS + limit))
  while kill -0 "$daemon_pid" 2>/dev/null && [ $SECONDS -lt $end ]; do sleep 0.05; done
  stop_ms=$((($(date +%s%N) - start) / 1000000))
  outcome="exited"
  if kill -0 "$daemon_pid" 2>/dev/null; then
    kill -9 "$daemon_pid"
    outcome="SIGKILLed at the ${limit} s limit"
  fi
  set +e; wait "$daemon_pid"; rc=$?; set -e
  daemon_pid=
  for p in "${busy_pids[@]}"; do kill -9 "$p" 2>/dev/null || true; done
  wait "${busy_pids[@]}" 2>/dev/null || true
  busy_pids=()
  [ -n "$target_pid" ] && kill -9 $target_pid 2>/dev/null || true
  left=$(sed -n 's/.*: \([0-9]*\) windows left unanalysed.*/\1/p' "$tmp/log")
  echo "$seer: ${written} windows written, ${analysed:-?} analysed, ${queued:-$((written - ${analysed:-0}))} queued at SIGTERM;" \
       "stop took ${stop_ms} ms, ${outcome} (status $rc); left unanalysed per the log: ${left:-not said}"
done
