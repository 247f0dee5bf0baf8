#!/usr/bin/env bash
# `seer daemon --watch` on a launched unmodified program with a race (the
# plain gcc build of tests/runtime/programs/watch_config.c, run for 8 s: its
# workers spend their time in their own code, sampled by the ticks that land
# there and by walks through their arithmetic):
# the windows carry the sampler's events, each window is analysed with the
# watch engine beside the configured analyses, and the caught race reaches
# the findings and /metrics:
#   - seer_events_recorded_total{kind="watch_sample"} > 0;
#   - seer_findings{kind="race",engine="watch"} >= 1, and /findings lists it
#     on the configuration word;
#   - a bad share is refused at start with the flag named;
#   - a program already running, attached by -p, is watched too: the counter
#     of watch_counter.c, whose workers make the pthread calls through which
#     threads that ran before the attach start to be sampled. They spend their
#     time in those calls, which the daemon records: most ticks land in the
#     runtime's wrappers, and the samples come from the walks that follow the
#     threads back into their code (before those, CI's machine took no sample
#     in 15 s of it). Its samples are few (none in some windows), and on a
#     busy machine the analysis, at idle priority, starts only once the
#     program's two workers are done: so the checks wait until the program
#     has ended and every window is analysed, then ask /metrics once.
# Usage: daemon_watch_test.sh SEER WATCH_CONFIG_PLAIN WATCH_COUNTER_PLAIN SCRATCH
set -euo pipefail
seer=$1 target=$2 running=$3 tmp=$4
here=$(cd "$(dirname "$0")" && pwd)
source "$here/daemon_lib.sh"
rm -rf "$tmp" && mkdir -p "$tmp"
kill_daemon_at_exit

if "$seer" daemon --listen 127.0.0.1:0 --dir "$tmp/bad" --watch=90 -- "$target" 10 2>"$tmp/bad.log"; then
  fail "--watch=90 was accepted"
fi
grep -q "'90': give the share of each thread's time, 0.1 to 50 (percent)" "$tmp/bad.log" ||
  { cat "$tmp/bad.log" >&2; fail "no clear message for --watch=90"; }

# hb: a quick configured analysis, which the watch engine joins.
start_daemon "$tmp/daemon.log" --dir "$tmp/windows" --window 1s --duty continuous -a hb --watch -- "$target" 8000
echo "daemon on port $port"
wait_for 60 "the target to exit" grep -q 'exited (status 0)' "$tmp/daemon.log"
wait_for 240 "every window of the launched program analysed" drained
positive 'seer_events_recorded_total{kind="watch_sample"}' || fail "no watch sample in the analysed windows"
positive 'seer_findings{kind="race",engine="watch"}' || fail "no race caught by watch among the findings"
curl -sf "http://127.0.0.1:$port/findings" >"$tmp/findings.json" || fail "GET /findings failed"
python3 - "$tmp/findings.json" <<'PY' || fail "/findings has no watch race on the configuration word"
import json, sys
findings = json.load(open(sys.argv[1]))
items = findings["findings"] if isinstance(findings, dict) else findings
watch = [f for f in items if f.get("engine") == "watch" and f.get("kind") == "race"]
print(len(watch), "watch findings:", [f.get("summary") for f in watch][:3])
sys.exit(0 if any("config" in f.get("summary", "") for f in watch) else 1)
PY
kill -TERM "$daemon_pid"
wait "$daemon_pid" || fail "seer daemon exited $? after SIGTERM"
daemon_pid=

# The counter program already running, attached by -p (the runtime injected; root
# or ptrace rights): its samples and its race reach the findings too, and it
# ends normally once the daemon lets it go.
if [ "$(id -u)" = 0 ]; then
  "$running" 15000 >"$tmp/attached.out" &
  target_pid=$!
  sleep 0.3
  start_daemon "$tmp/daemon.log" --dir "$tmp/attached" --window 1s --duty continuous -a hb --watch -p "$target_pid"
  wait_for 60 "the attached program to end" grep -q 'exited (status' "$tmp/daemon.log"
  wait_for 240 "every window of the attached program analysed" drained
  positive 'seer_events_recorded_total{kind="watch_sample"}' || fail "no watch sample of the attached program"
  positive 'seer_findings{kind="race",engine="watch"}' || fail "no race caught by watch in the attached program"
  kill -TERM "$daemon_pid"
  wait "$daemon_pid" || fail "seer daemon exited $? after SIGTERM (attached)"
  daemon_pid=
  wait "$target_pid" || fail "the attached program exited $? after the daemon let it go"
  grep -q 'guarded=' "$tmp/attached.out" || fail "the attached program printed no result"
  echo "attached program $target_pid: sampled, its race among the findings, let go, ended normally"
else
  echo "SKIPPED LOUDLY: the attached part needs root (ptrace)"
fi
echo "daemon watch test: passed"
