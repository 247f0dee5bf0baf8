# Shared by the daemon tests: start `seer daemon` with its log in a file, find
# the port it listens on, wait for conditions with a deadline, fail loudly.
# Sourced; expects $tmp (a scratch folder) and $seer.

fail() { echo "FAIL: $*" >&2; [ -f "$tmp/daemon.log" ] && { echo "--- daemon log:" >&2; tail -30 "$tmp/daemon.log" >&2; }; exit 1; }

# kill_daemon: kills the daemon started last and its children (the target it
# launched, an analysis process) at once: an orphaned target would keep
# ctest's output pipe open until the test's timeout.
kill_daemon() {
  [ -n "${daemon_pid:-}" ] || return 0
  pkill -9 -P "$daemon_pid" 2>/dev/null || true
  kill -9 "$daemon_pid" 2>/dev/null || true
}

# kill_daemon_at_exit: however the test ends (a failed check exits at once),
# nothing it started is left running.
kill_daemon_at_exit() { trap 'kill_daemon; wait 2>/dev/null || true' EXIT; }

# start_daemon LOG ARGS...: runs seer daemon in the background (pid in $daemon_pid)
# and waits for its "listening on" line (port in $port).
start_daemon() {
  local log=$1; shift
  "$seer" daemon --listen 127.0.0.1:0 "$@" 2>"$log" &
  daemon_pid=$!
  port=
  for _ in $(seq 1 100); do
    port=$(sed -n 's|.*listening on http://127.0.0.1:\([0-9]*\)/.*|\1|p' "$log" | head -1)
    [ -n "$port" ] && return 0
    kill -0 "$daemon_pid" 2>/dev/null || { cat "$log" >&2; fail "seer daemon exited at start"; }
    sleep 0.1
  done
  fail "seer daemon did not say where it listens within 10 s"
}

# wait_for SECONDS DESCRIPTION COMMAND...: until COMMAND succeeds.
wait_for() {
  local limit=$1 what=$2; shift 2
  local end=$((SECONDS + limit))
  until "$@"; do
    [ $SECONDS -lt $end ] || fail "not within ${limit} s: $what"
    sleep 0.5
  done
}

metric() {  # metric NAME_AND_LABELS_PREFIX: the value of the first matching sample of /metrics
  curl -sf "http://127.0.0.1:$port/metrics" | grep -F "$1" | grep -v '^#' | head -1 | awk '{print $NF}'
}

positive() { local v; v=$(metric "$1"); [ -n "$v" ] && awk -v v="$v" 'BEGIN{exit !(v > 0)}'; }

# drained: no window waits for its analysis or is in one. The daemon analyses
# at SCHED_IDLE, so on a busy machine the queue drains only when a core is
# free: a test that needs a window's findings waits for this, not a clock.
drained() { local v; v=$(metric 'seer_windows_queued '); [ -n "$v" ] && awk -v v="$v" 'BEGIN{exit !(v == 0)}'; }
