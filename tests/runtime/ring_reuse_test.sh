#!/usr/bin/env bash
# Ring reuse end to end (docs/runtime.md, "Ring reuse"): programs that create
# thousands of short-lived threads (tests/runtime/programs/thread_churn.c),
# recorded with `seer record --sync=inproc`, keep every thread in the trace
# (each use of a ring a thread of its own, nothing lost, no thread without a
# ring), and hb tells the threads of one ring apart:
#  1. 3000 threads, 8 at a time, joined before the next batch (1024 rings);
#  2. 3000 detached threads (half created so, half by pthread_detach);
#  3. 400 threads, one at a time, with two rings: every thread reuses the
#     previous one's ring and main joins it after the ring went back;
#  1-3 are race-free: hb must report nothing (a join resolved to the wrong
#     thread would leave the writers unordered);
#  4. 200 detached writers of one variable with two rings: consecutive ones
#     share a ring and nothing orders them: hb must report the race;
#  5. 20 threads alive at once with 8 rings: main and 7 workers recorded, the
#     other 13 counted once each as threads without a ring.
# Usage: ring_reuse_test.sh SEER PROGRAMS_DIR
set -euo pipefail
seer=$1 programs=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

# Records `thread_churn ARGS` with the seer record options in $opts, checks the
# trace (threads, losses, rings returned) and runs hb: $work/$name.json.
# Usage: check NAME EXPECTED_THREADS MIN_RETURNED -- [record options] -- program args
check() {
  local name=$1 threads=$2 min_returned=$3
  shift 4
  local opts=()
  while [ "$1" != -- ]; do opts+=("$1"); shift; done
  shift
  if ! "$seer" record --sync=inproc -q "${opts[@]}" -o "$work/$name.seer" -- "$programs/thread_churn" "$@"; then
    fail "$name: seer record failed"
    return
  fi
  "$seer" info --json "$work/$name.seer" >"$work/$name.info.json"
  "$seer" analyze -a hb --format json -o "$work/$name.json" "$work/$name.seer"
  python3 - "$work/$name.info.json" "$threads" "$min_returned" "$name" <<'PY' || failures=$((failures + 1))
import json, sys
info = json.load(open(sys.argv[1]))
want, min_returned, name = int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
bad = []
if info["threads"] != want:
    bad.append(f"{info['threads']} threads in the trace, want {want}")
if info["lost_events"] != 0:
    bad.append(f"lost events: {info['lost']}")
tids = [t["tid"] for t in info["thread_list"]]
if len(set(tids)) != len(tids):
    bad.append("a tid listed twice")
begins = sum(t["by_kind"].get("thread_begin", 0) for t in info["thread_list"])
if begins != want:
    bad.append(f"{begins} thread_begin events, want one per thread ({want})")
main = min(tids)
orphans = [t["tid"] for t in info["thread_list"] if t["tid"] != main and t["parent"] != main]
if orphans:
    bad.append(f"{len(orphans)} workers without main as parent, e.g. {orphans[:3]}")
returned = int(info["meta"].get("record.rings_returned", "0"))
if returned < min_returned:
    bad.append(f"{returned} rings returned, want at least {min_returned}")
for b in bad:
    print(f"FAIL: {name}: {b}")
print(f"{name}: {info['threads']} threads, {info['lost_events']} lost, {returned} rings returned")
sys.exit(1 if bad else 0)
PY
}

# hb's pairs in $work/NAME.json between two threads on the global variable $2
# (any variable when empty).
races() {
  python3 - "$work/$1.json" "${2:-}" <<'PY'
import json, sys
report = json.load(open(sys.argv[1]))
pairs = report["races"]["hb"]["pairs"]
var = sys.argv[2]
print(sum(1 for p in pairs
          if p["first"]["thread"] != p["second"]["thread"]
          and (not var or (p["variable_details"] or {}).get("name") == var)))
PY
}

check joined 3001 1000 -- -- joined 3000 8
[ "$(races joined)" = 0 ] || fail "joined: hb reports races in a race-free program"

check detached 3001 1000 -- -- detached 3000
[ "$(races detached)" = 0 ] || fail "detached: hb reports races in a race-free program"

check joined_two_rings 401 399 -- --rings 2 -- joined 400 1
[ "$(races joined_two_rings)" = 0 ] || fail "joined_two_rings: hb reports races: a join named the wrong thread"

check racy 202 200 -- --rings 2 -- racy 200
n=$(races racy racy)
[ "$n" -ge 1 ] || fail "racy: hb reports no race on racy between threads of one ring"
echo "racy: $n hb pairs on racy"

"$seer" record --sync=inproc -q --rings 8 -o "$work/held.seer" -- "$programs/thread_churn" joined 20 20 ||
  fail "held: seer record failed"
"$seer" info --json "$work/held.seer" | python3 -c '
import json, sys
i = json.load(sys.stdin)
print("held:", i["threads"], "threads, lost", i["lost"])
ok = i["threads"] == 8 and i["lost"] == {"runtime-no-ring": {"thread_begin": 13}}
sys.exit(0 if ok else 1)' || fail "held: want 8 threads recorded and 13 without a ring"

if [ "$failures" -ne 0 ]; then
  echo "$failures failure(s)"
  exit 1
fi
echo "ring reuse: all good"
