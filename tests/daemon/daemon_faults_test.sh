#!/usr/bin/env bash
# `seer daemon` when things go wrong, with the real binary and a real target
# (tests/programs/daemon_target):
#   - a malformed or incomplete configuration: a clear message, exit 2;
#   - the launched target exits: the daemon says so in /metrics and serves on;
#   - the daemon is SIGKILLed: every window written is readable, the closed
#     ones complete; a restart on the same directory keeps them and records on;
#   - a target by name: re-attached (by injection) when its process restarts;
#   - SIGHUP: a new config is taken, a broken one refused while the old runs;
#   - the disk is short of space: recording pauses and /metrics says so;
#   - futex_tracepoints that the kernel refuses (bpf() denied by seccomp,
#     tests/programs/deny_bpf): the log says why, the command is not started,
#     and the daemon serves on.
# Usage: daemon_faults_test.sh SEER DAEMON_TARGET SCRATCH DENY_BPF
set -euo pipefail
seer=$1 target=$2 tmp=$3 deny_bpf=$4
here=$(cd "$(dirname "$0")" && pwd)
source "$here/daemon_lib.sh"
rm -rf "$tmp" && mkdir -p "$tmp"
extra_pids=()
cleanup() {
  for p in "${extra_pids[@]}"; do kill -9 "$p" 2>/dev/null || true; done
  kill_daemon
  wait 2>/dev/null || true
}
trap cleanup EXIT

stop_daemon() {
  kill -TERM "$daemon_pid"
  wait "$daemon_pid" || fail "seer daemon exited $? after SIGTERM"
  daemon_pid=
}

echo "== malformed configuration"
printf 'dir = "%s/w"\nwindow = [unclosed\n' "$tmp" > "$tmp/bad.toml"
set +e
"$seer" daemon --config "$tmp/bad.toml" 2> "$tmp/bad.err"; rc=$?
set -e
[ $rc = 2 ] || fail "a malformed config exited $rc, not 2"
grep -q "bad.toml:2" "$tmp/bad.err" || fail "the message does not name bad.toml line 2: $(cat "$tmp/bad.err")"
printf 'dir = "%s/w"\nwindwo = "1s"\n' "$tmp" > "$tmp/typo.toml"
set +e
"$seer" daemon --config "$tmp/typo.toml" 2> "$tmp/typo.err"; rc=$?
"$seer" daemon --dir "$tmp/w" 2> "$tmp/notarget.err"; rc2=$?
"$seer" daemon --dir "$tmp/w" --duty 5s -- "$target" 2> "$tmp/duty.err"; rc3=$?
set -e
[ $rc = 2 ] && grep -q "unknown key 'windwo'" "$tmp/typo.err" || fail "a misspelt key: exit $rc, $(cat "$tmp/typo.err")"
[ $rc2 = 2 ] && grep -q "no target" "$tmp/notarget.err" || fail "no target: exit $rc2, $(cat "$tmp/notarget.err")"
[ $rc3 = 2 ] && grep -q "duty cycle" "$tmp/duty.err" || fail "a bad duty cycle: exit $rc3, $(cat "$tmp/duty.err")"
[ ! -e "$tmp/w" ] || fail "a refused configuration created the window directory"

echo "== the launched target exits"
start_daemon "$tmp/exit.log" --dir "$tmp/exit" --window 1s --duty continuous -- "$target" 2
wait_for 60 "the target's exit in the log" grep -q "exited (status 0)" "$tmp/exit.log"
wait_for 30 "seer_target_up 0" bash -c "[ \"\$(curl -sf http://127.0.0.1:$port/metrics | grep '^seer_target_up' | awk '{print \$NF}')\" = 0 ]"
positive 'seer_windows_written_total{target="command' || fail "no window written before the target exited"
# The windows are analysed in the background: the finding may come after the exit.
wait_for 60 "the target's deadlock in /findings" bash -c \
  "curl -sf http://127.0.0.1:$port/findings | grep -q '\"kind\": \"deadlock\"'"
stop_daemon

echo "== SIGKILL of the daemon, then a restart on the same directory"
start_daemon "$tmp/kill.log" --dir "$tmp/kill" --window 1s --duty continuous -- "$target"
wait_for 60 "two windows written" bash -c "[ \"\$(curl -sf http://127.0.0.1:$port/metrics | grep '^seer_windows_written_total' | awk '{print \$NF}')\" -ge 2 ]"
child=$(pgrep -P "$daemon_pid" -f daemon_target || true)
kill -9 "$daemon_pid"; wait "$daemon_pid" 2>/dev/null || true; daemon_pid=
[ -n "$child" ] && kill -9 "$child" 2>/dev/null || true
complete=0 partial=0
for w in "$tmp"/kill/window-*.seer; do
  info=$("$seer" info "$w") || fail "a window the killed daemon left is unreadable: $w"
  if grep -q '^complete: *yes' <<<"$info"; then complete=$((complete + 1)); else partial=$((partial + 1)); fi
done
[ $complete -ge 2 ] || fail "only $complete complete windows after SIGKILL"
[ $partial -le 1 ] || fail "$partial windows not closed: only the open one may be"
first=$(ls "$tmp"/kill/window-*.seer | head -1)
"$seer" analyze -a deadlock "$first" > "$tmp/kill-analyze.txt" || fail "seer analyze on a committed window failed"
grep -qi "deadlock" "$tmp/kill-analyze.txt" || fail "the committed window's analysis has no deadlock"
before=$(ls "$tmp"/kill/window-*.seer | wc -l)
start_daemon "$tmp/kill2.log" --dir "$tmp/kill" --window 1s --duty continuous -- "$target"
wait_for 60 "a window after the restart" bash -c "[ \$(ls $tmp/kill/window-*.seer | wc -l) -gt $((before + 1)) ]"
wait_for 30 "the windows before the kill kept and counted" bash -c \
  "[ \"\$(curl -sf http://127.0.0.1:$port/metrics | grep '^seer_window_files ' | awk '{print \$NF}')\" -gt $before ]"
echo "$complete complete + $partial partial windows survived SIGKILL; the restart records on"
stop_daemon

echo "== a target by name is re-attached when it restarts"
# A name of its own: no other process on the machine (another test's target) matches it.
named=$tmp/ft-$$
cp "$target" "$named"
"$named" & extra_pids+=($!); first_pid=$!
cat > "$tmp/name.toml" <<TOML
dir = "$tmp/name"
window = "1s"
duty = "continuous"
analyses = "deadlock"
[[target]]
name = "ft-$$"
TOML
start_daemon "$tmp/name.log" --config "$tmp/name.toml"
wait_for 60 "recording the first process" grep -q "recording name ft-$$ (process $first_pid)" "$tmp/name.log"
grep -q "(inject mode)" "$tmp/name.log" || fail "the running process was not recorded by injection: $(cat "$tmp/name.log")"
wait_for 60 "a window of the first process" positive "seer_windows_written_total{target=\"name ft-$$\"}"
kill -9 "$first_pid"
"$named" & extra_pids+=($!); second_pid=$!
wait_for 60 "re-attached to the restarted process" grep -q "recording name ft-$$ (process $second_pid)" "$tmp/name.log"
wait_for 30 "two recordings counted" bash -c "[ \"\$(curl -sf http://127.0.0.1:$port/metrics | grep '^seer_target_recordings_total' | awk '{print \$NF}')\" = 2 ]"

echo "== SIGHUP reloads the configuration"
sed -i 's/^analyses = .*/analyses = "deadlock,hb"/' "$tmp/name.toml"
kill -HUP "$daemon_pid"
wait_for 20 "the reload" grep -q "configuration reloaded (analyses: deadlock,hb)" "$tmp/name.log"
echo 'window = [broken' >> "$tmp/name.toml"
kill -HUP "$daemon_pid"
wait_for 20 "the broken reload refused" grep -q "reload refused" "$tmp/name.log"
kill -0 "$daemon_pid" || fail "a broken reload stopped the daemon"
curl -sf "http://127.0.0.1:$port/metrics" > /dev/null || fail "the daemon stopped serving after a refused reload"
stop_daemon
kill -9 "$second_pid" 2>/dev/null || true

echo "== the disk is short of space"
cat > "$tmp/full.toml" <<TOML
dir = "$tmp/full"
[retention]
min_free = "1000000T"
TOML
start_daemon "$tmp/full.log" --config "$tmp/full.toml" --window 1s --duty continuous -- "$target"
wait_for 30 "seer_recording_paused 1" bash -c \
  "curl -sf http://127.0.0.1:$port/metrics | grep -q '^seer_recording_paused{.*reason=\"disk_full\"} 1'"
grep -q "recording paused" "$tmp/full.log" || fail "the log does not say recording paused"
[ -z "$(ls "$tmp/full")" ] || fail "windows were written with the disk short of space"
stop_daemon

echo "== futex_tracepoints that the kernel refuses"
if [ "$(id -u)" != 0 ]; then
  echo "*** NOT RUN: futex_tracepoints needs root (or CAP_BPF and CAP_PERFMON) ***"
else
  printf '#!/bin/sh\nexec "%s" "%s" "$@"\n' "$deny_bpf" "$seer" > "$tmp/seer-without-bpf"
  chmod +x "$tmp/seer-without-bpf"
  printf 'dir = "%s/nobpf"\nfutex_tracepoints = true\n' "$tmp" > "$tmp/nobpf.toml"
  seer_itself=$seer
  seer=$tmp/seer-without-bpf
  start_daemon "$tmp/nobpf.log" --config "$tmp/nobpf.toml" --duty continuous -- /bin/sh -c "touch '$tmp/nobpf-ran'; sleep 100"
  seer=$seer_itself
  wait_for 30 "the refusal in the log" grep -q "cannot record (preload mode): .*--futex-tracepoints: the futex tracepoints could not be loaded: the kernel refused" "$tmp/nobpf.log"
  [ "$(metric 'seer_target_up{')" = 0 ] || fail "seer_target_up is not 0 with the tracepoints refused"
  [ ! -e "$tmp/nobpf-ran" ] || fail "the command was started although it could not be recorded"
  stop_daemon
fi

echo "daemon faults test: passed"
