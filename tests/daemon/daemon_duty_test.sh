#!/usr/bin/env bash
# `seer daemon` with a duty cycle on a real target (tests/programs/daemon_target,
# launched with the preloaded runtime): the off periods pause the runtime in
# the target, so that it records (almost) nothing while off, and the lock-order
# inversion is still found in the on periods.
#   - /metrics shows the runtime paused in an off period and recording in an on one;
#   - the events left out of the windows (seer_events_skipped_total: what
#     reached the daemon outside a window) are at most 2% of those the windows
#     hold; without the pause they would be about twice as many (4 s off for
#     every 2 s on);
#   - one deadlock finding, between first and second, and no other;
#   - every window is complete after SIGTERM.
# Usage: daemon_duty_test.sh SEER DAEMON_TARGET SCRATCH
set -euo pipefail
seer=$1 target=$2 tmp=$3
here=$(cd "$(dirname "$0")" && pwd)
source "$here/daemon_lib.sh"
rm -rf "$tmp" && mkdir -p "$tmp"
kill_daemon_at_exit

start_daemon "$tmp/daemon.log" --dir "$tmp/windows" --window 1s --duty 2s/6s -- "$target"
echo "daemon on port $port"
wait_for 30 "the target recorded" positive 'seer_target_up{'

# Three periods; the gauge is sampled twice a second.
saw_paused=0 saw_running=0
end=$((SECONDS + 19))
while [ $SECONDS -lt $end ]; do
  case "$(metric 'seer_target_runtime_paused{')" in
    1) saw_paused=1 ;;
    0) saw_running=1 ;;
    *) fail "/metrics has no seer_target_runtime_paused" ;;
  esac
  sleep 0.5
done
[ $saw_paused = 1 ] || fail "the runtime was never paused in 19 s of a 2s/6s duty cycle"
[ $saw_running = 1 ] || fail "the runtime never recorded in 19 s of a 2s/6s duty cycle"

wait_for 90 "a deadlock finding" bash -c "curl -sf http://127.0.0.1:$port/findings | grep -q '\"kind\": \"deadlock\"'"
curl -sf "http://127.0.0.1:$port/findings" > "$tmp/findings.json"
n=$(grep -c '"kind":' "$tmp/findings.json" || true)
[ "$n" = 1 ] || fail "expected the one deadlock finding, got $n: $(cat "$tmp/findings.json")"
grep -q 'first_then_second' "$tmp/findings.json" && grep -q 'second_then_first' "$tmp/findings.json" ||
  fail "the finding is not the inversion of first and second: $(cat "$tmp/findings.json")"

skipped=$(metric 'seer_events_skipped_total{')
kill -TERM "$daemon_pid"
wait "$daemon_pid" || fail "seer daemon exited $? after SIGTERM"
daemon_pid=
windowed=0
for w in "$tmp"/windows/window-*.seer; do
  info=$("$seer" info "$w") || fail "seer info $w failed"
  grep -q '^complete: *yes' <<<"$info" || fail "$w is not complete after SIGTERM"
  n=$(sed -n 's/^events: *\([0-9]*\).*/\1/p' <<<"$info" | head -1)
  [ -n "$n" ] || fail "seer info $w names no event count: $info"
  windowed=$((windowed + n))
done
echo "$(ls "$tmp"/windows | wc -l) windows holding $windowed events; $skipped events reached the daemon outside a window"
[ "$windowed" -gt 1000 ] || fail "the windows hold only $windowed events"
awk -v s="$skipped" -v w="$windowed" 'BEGIN { exit !(s * 50 <= w) }' ||
  fail "$skipped events were recorded outside the on periods, more than 2% of the $windowed in windows: the runtime was not paused"
echo "daemon duty test: passed"
