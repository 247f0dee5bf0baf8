#!/usr/bin/env bash
# `seer daemon` on a launched target that creates more threads than there are
# rings (tests/runtime/programs/thread_churn.c: 3000 threads, 8 at a time, a
# batch every 10 ms; the recorder has 1024 rings): the rings of ended, joined
# threads go back to the runtime (docs/runtime.md, "Ring reuse"), so the
# target stays recorded to its end across windows.
#   - the windows together hold a thread_begin for every thread (3001);
#   - no window lost anything (no thread without a ring, no ring overflow).
# Usage: daemon_churn_test.sh SEER THREAD_CHURN SCRATCH
set -euo pipefail
seer=$1 target=$2 tmp=$3
here=$(cd "$(dirname "$0")" && pwd)
source "$here/daemon_lib.sh"
rm -rf "$tmp" && mkdir -p "$tmp"
kill_daemon_at_exit

start_daemon "$tmp/daemon.log" --dir "$tmp/windows" --window 1s --duty continuous -- "$target" joined 3000 8 10
echo "daemon on port $port"
wait_for 120 "the target to exit" grep -q 'exited (status 0)' "$tmp/daemon.log"
kill -TERM "$daemon_pid"
wait "$daemon_pid" || fail "seer daemon exited $? after SIGTERM"
daemon_pid=
begins=0 lost=0 windows=0
for w in "$tmp"/windows/window-*.seer; do
  "$seer" info --json "$w" >"$tmp/info.json" || fail "seer info $w failed"
  read -r b l < <(python3 -c '
import json, sys
i = json.load(open(sys.argv[1]))
print(i["by_kind"].get("thread_begin", 0), i["lost_events"])' "$tmp/info.json")
  begins=$((begins + b)) lost=$((lost + l)) windows=$((windows + 1))
done
echo "$windows windows: $begins thread begins, $lost lost"
[ "$windows" -ge 3 ] || fail "only $windows windows: the target ran too briefly to cross windows"
[ "$begins" = 3001 ] || fail "the windows hold $begins thread begins, want 3001 (main and 3000 workers)"
[ "$lost" = 0 ] || fail "the windows lost $lost events"
echo "daemon churn test: passed"
