#!/usr/bin/env bash
# `seer daemon` stopping and starting again, with the real binary and a real
# target (tests/programs/daemon_target: a lock-order inversion between `first`
# and `second`). Each analysis is made slow by the test hook
# SEER_TEST_SLOW_ANALYSIS_MS (read by the analysis process only), so that
# windows queue up as they do under load:
#   - SIGTERM with windows queued and one in analysis: exit 0 within 10 s, every
#     window readable, the log says how many were left unanalysed; a restart
#     queues exactly those, analyses them, and the finding goes on: same id and
#     first seen, more windows, its HTML report still served, the findings
#     gauge right from the start;
#   - SIGKILL during an analysis: the analysis process dies with the daemon,
#     and a restart analyses the window it was on and those queued;
#   - a damaged state file: logged, set aside, the daemon starts and analyses
#     every window again;
#   - retention at a restart removing windows left unanalysed: logged, counted
#     in seer_windows_skipped_total, the rest queued.
# Usage: daemon_restart_test.sh SEER DAEMON_TARGET SCRATCH
set -euo pipefail
seer=$1 target=$2 tmp=$3
here=$(cd "$(dirname "$0")" && pwd)
source "$here/daemon_lib.sh"
rm -rf "$tmp" && mkdir -p "$tmp"
kill_daemon_at_exit
dir=$tmp/windows

# The one finding of /findings (the target has one bug): FIELD of it.
finding() {
  local json
  json=$(curl -sf "http://127.0.0.1:$port/findings") || return 1
  [ "$(grep -c '"id"' <<<"$json")" = 1 ] || { echo "not one finding: $json" >&2; return 1; }
  grep -q '"kind": "deadlock"' <<<"$json" || { echo "not a deadlock: $json" >&2; return 1; }
  sed -n "s/.*\"$1\": \"\{0,1\}\([^\",]*\)\"\{0,1\},\{0,1\}\$/\1/p" <<<"$json"
}
at_least() { local v; v=$(metric "$1"); [ -n "$v" ] && [ "${v%.*}" -ge "$2" ]; }
found() { [ "$(finding windows 2>/dev/null)" != "" ]; }

# stop_timed SIGNAL: sends it and waits; sets $stop_rc and $stop_ms.
stop_timed() {
  local start
  start=$(date +%s%N)
  kill "-$1" "$daemon_pid"
  set +e; wait "$daemon_pid"; stop_rc=$?; set -e
  stop_ms=$((($(date +%s%N) - start) / 1000000))
  daemon_pid=
}

# The window files not yet in the state's windows done (one name a line).
not_done() {
  local w
  for w in "$dir"/window-*.seer; do
    grep -qF "\"$(basename "$w")\"" "$dir/seer-state.json" 2>/dev/null || basename "$w"
  done
}
# all_done NAMES_FILE: every window named there is in the state's windows done.
all_done() {
  local name
  while read -r name; do grep -qF "\"$name\"" "$dir/seer-state.json" || return 1; done < "$1"
}

all_readable() {
  local n=0
  for w in "$dir"/window-*.seer; do
    "$seer" info "$w" > /dev/null || fail "a window is unreadable after the stop: $w"
    n=$((n + 1))
  done
  echo "$n windows, all readable"
}

echo "== SIGTERM with windows queued"
export SEER_TEST_SLOW_ANALYSIS_MS=3000
start_daemon "$tmp/run1.log" --dir "$dir" --window 1s --duty continuous -- "$target"
grep -q "test hook SEER_TEST_SLOW_ANALYSIS_MS=3000" "$tmp/run1.log" || fail "the test hook is not logged"
wait_for 60 "the deadlock found" found
wait_for 60 "three windows queued" at_least 'seer_windows_queued ' 3
id=$(finding id) first_seen=$(finding first_seen) count1=$(finding windows)
echo "finding $id first seen $first_seen in $count1 windows; stopping"
stop_timed TERM
[ "$stop_rc" = 0 ] || fail "seer daemon exited $stop_rc after SIGTERM"
[ "$stop_ms" -le 10000 ] || fail "SIGTERM took $stop_ms ms with windows queued (at most 10 s)"
left=$(sed -n 's/.*: \([0-9]*\) windows left unanalysed.*/\1/p' "$tmp/run1.log")
[ -n "$left" ] && [ "$left" -ge 3 ] || fail "the log does not say that 3 or more windows were left unanalysed"
echo "stopped in $stop_ms ms with $left windows left unanalysed"
all_readable
not_done > "$tmp/left1"
[ "$(wc -l < "$tmp/left1")" = "$left" ] || fail "the state has $(wc -l < "$tmp/left1") windows not done, the log says $left"
[ "$(stat -c %a "$dir/seer-state.json")" = 600 ] || fail "the state file is not 0600"

echo "== the restart analyses them; the finding goes on"
export SEER_TEST_SLOW_ANALYSIS_MS=1500
start_daemon "$tmp/run2.log" --dir "$dir" --window 1s --duty continuous -- "$target"
grep -q "state of the last run: 1 findings" "$tmp/run2.log" || fail "the state was not loaded"
queued=$(sed -n 's/.*: \([0-9]*\) windows of the last run are not analysed yet.*/\1/p' "$tmp/run2.log")
[ "$queued" = "$left" ] || fail "the restart queued ${queued:-no} windows, the stop left $left"
# Before any analysis of this run (each waits 1.5 s): the loaded registry.
[ "$(finding windows)" = "$count1" ] || fail "the finding's count at the restart is not $count1"
[ "$(metric 'seer_findings{kind="deadlock",engine="deadlock"}')" = 1 ] || fail "seer_findings does not show the loaded finding"
# Not `curl | grep -q`: grep exits at the first line and, under pipefail, curl's
# SIGPIPE would fail the check.
html=$(curl -sf "http://127.0.0.1:$port/findings/$id?format=html") || html=
grep -q '<html' <<<"$html" || fail "the finding's HTML report is not served after the restart"
grep -q "first seen: $first_seen" <<<"$(curl -sf "http://127.0.0.1:$port/findings/$id")" || fail "the text report lost its first seen"
wait_for 90 "the $left windows left analysed" all_done "$tmp/left1"
count2=$(finding windows)
[ "$(finding first_seen)" = "$first_seen" ] || fail "first seen changed: $(finding first_seen), was $first_seen"
[ "$(finding id)" = "$id" ] || fail "the finding's id changed"
[ "$count2" -gt "$count1" ] || fail "the finding's count did not grow: $count2, was $count1"
echo "finding $id: $count1 windows before, $count2 after the restart, first seen kept"
stop_timed TERM
[ "$stop_rc" = 0 ] || fail "seer daemon exited $stop_rc after the second SIGTERM"
[ "$stop_ms" -le 10000 ] || fail "the second SIGTERM took $stop_ms ms"
echo "second stop in $stop_ms ms"

echo "== SIGKILL during an analysis"
export SEER_TEST_SLOW_ANALYSIS_MS=4000
start_daemon "$tmp/run3.log" --dir "$dir" --window 1s --duty continuous -- "$target"
wait_for 60 "two windows queued" at_least 'seer_windows_queued ' 2
analysing() { child=$(pgrep -P "$daemon_pid" -f -- '__analyze-window' | head -1 || true); [ -n "$child" ]; }
wait_for 10 "an analysis process under the daemon" analysing
count3=$(finding windows)
target_pid=$(pgrep -P "$daemon_pid" -f daemon_target || true)
kill -9 "$daemon_pid"; wait "$daemon_pid" 2>/dev/null || true; daemon_pid=
[ -n "$target_pid" ] && kill -9 $target_pid 2>/dev/null || true
gone() { ! kill -0 "$child" 2>/dev/null; }
wait_for 5 "the analysis process $child ending with the daemon" gone
all_readable
not_done > "$tmp/left3"
unset SEER_TEST_SLOW_ANALYSIS_MS
start_daemon "$tmp/run4.log" --dir "$dir" --window 1s --duty continuous -- "$target"
queued=$(sed -n 's/.*: \([0-9]*\) windows of the last run are not analysed yet.*/\1/p' "$tmp/run4.log")
# The one in analysis, the queued one behind it, and the open window.
[ -n "$queued" ] && [ "$queued" -ge 2 ] || fail "the restart after SIGKILL queued ${queued:-no} windows, 2 or more expected"
[ "$(wc -l < "$tmp/left3")" = "$queued" ] || fail "the restart queued $queued windows, the state had $(wc -l < "$tmp/left3") not done"
wait_for 90 "the $queued windows left analysed" all_done "$tmp/left3"
count4=$(finding windows)
[ "$count4" -gt "$count3" ] || fail "the count did not grow after SIGKILL and a restart: $count4, was $count3"
[ "$(finding first_seen)" = "$first_seen" ] || fail "first seen changed after SIGKILL"
echo "after SIGKILL: $queued windows analysed at the restart; $count3 windows before, $count4 after"
stop_timed TERM
[ "$stop_rc" = 0 ] || fail "seer daemon exited $stop_rc"

echo "== a damaged state file"
head -c 100 "$dir/seer-state.json" > "$tmp/half" && cat "$tmp/half" > "$dir/seer-state.json"
files=$(ls "$dir"/window-*.seer | wc -l)
start_daemon "$tmp/run5.log" --dir "$dir" --window 1s --duty continuous -- "$target"
grep -q "state of the last run cannot be used (corruption: .*seer-state.json: not JSON" "$tmp/run5.log" ||
  fail "the damaged state is not logged: $(cat "$tmp/run5.log")"
[ -f "$dir/seer-state.json.damaged" ] || fail "the damaged state was not set aside"
queued=$(sed -n 's/.*: \([0-9]*\) windows of the last run are not analysed yet.*/\1/p' "$tmp/run5.log")
[ "$queued" = "$files" ] || fail "with no state ${queued:-no} windows were queued, not all $files"
wait_for 60 "the deadlock found again" found
curl -sf "http://127.0.0.1:$port/metrics" > /dev/null || fail "the daemon does not serve"
stop_timed TERM
[ "$stop_rc" = 0 ] || fail "seer daemon exited $stop_rc"

echo "== retention at the restart removes windows left unanalysed: counted as skipped"
export SEER_TEST_SLOW_ANALYSIS_MS=3000
start_daemon "$tmp/run6.log" --dir "$dir" --window 1s --duty continuous -- "$target"
wait_for 60 "three windows queued" at_least 'seer_windows_queued ' 3
stop_timed TERM
[ "$stop_rc" = 0 ] || fail "seer daemon exited $stop_rc"
unset SEER_TEST_SLOW_ANALYSIS_MS
not_done > "$tmp/left6"
ls "$dir" | grep '^window-.*\.seer$' | sort | tail -3 > "$tmp/kept"
skipped=$(grep -cvxFf "$tmp/kept" "$tmp/left6" || true)
[ "$skipped" -ge 1 ] || fail "the scenario leaves no unanalysed window to retention"
printf 'dir = "%s"\n[retention]\nmax_windows = 3\n' "$dir" > "$tmp/keep3.toml"
start_daemon "$tmp/run7.log" --config "$tmp/keep3.toml" --window 1s --duty continuous -- "$target"
grep -q "retention removed $skipped windows of the last run before their analysis" "$tmp/run7.log" ||
  fail "the log does not say that retention removed $skipped unanalysed windows: $(cat "$tmp/run7.log")"
at_least 'seer_windows_skipped_total ' "$skipped" || fail "seer_windows_skipped_total is under $skipped"
queued=$(sed -n 's/.*: \([0-9]*\) windows of the last run are not analysed yet.*/\1/p' "$tmp/run7.log")
[ "$queued" = "$(grep -cxFf "$tmp/kept" "$tmp/left6")" ] || fail "the restart queued ${queued:-no} windows, not those retention kept"
echo "retention removed $skipped unanalysed windows at the restart, counted in seer_windows_skipped_total"
stop_timed TERM
[ "$stop_rc" = 0 ] || fail "seer daemon exited $stop_rc"
echo "daemon restart test: passed"
