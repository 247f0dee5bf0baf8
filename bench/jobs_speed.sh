#!/usr/bin/env bash
# `seer analyze --jobs` (issue #33): the default analyses of a generated trace of
# 100M events (`seer gen`, the options of issue #33's 3M-event trace; generating
# is seconds where recording that many events takes minutes) with --jobs 1 and
# --jobs 2, interleaved 1,2,1,2: wall and CPU seconds and peak RSS of each run,
# the wall ratio of the pairs (goal: <= 0.6 on 2 vCPUs), and a byte-for-byte
# comparison (cmp) of every JSON report with the first. The machine is shared:
# say what else ran when quoting the figures. TRACE=PATH analyses that trace
# instead, e.g. a recorded one: `seer record -o PATH -- build/bench/runtime/
# workload_seer 4 1500000` records 132M events in some 3 s. EVENTS is then unused.
# Usage: [TRACE=PATH] bench/jobs_speed.sh [BUILD_DIR] [EVENTS] [JOBS]   (JOBS: the many-jobs run, default 2)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build} events=${2:-100000000} jobs=${3:-2}
seer=$build/cli/seer
[ -x "$seer" ] || { echo "jobs_speed: build seer first" >&2; exit 2; }
[ -x /usr/bin/time ] || { echo "jobs_speed: needs /usr/bin/time (Debian: time)" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
trace=${TRACE:-$work/t.seer}
if [ -z "${TRACE:-}" ]; then
  "$seer" gen --events "$events" --threads 8 --locks 8 --vars 2000 --locations 500 --seed 3 -o "$trace"
  what="seer gen --events $events --threads 8 --locks 8 --vars 2000 --locations 500 --seed 3"
else
  [ -r "$TRACE" ] || { echo "jobs_speed: cannot read $TRACE" >&2; exit 2; }
  what="$TRACE, $("$seer" info "$TRACE" | sed -n 's/^events: *//p') events, command line: $("$seer" info "$TRACE" | sed -n 's/^command line: *//p')"
fi
echo "trace: $what ($(du -m "$trace" | cut -f1) MB); CPUs usable: $(nproc); load before: $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-5s %4s %9s %9s %9s\n' run jobs wall_s cpu_s peak_MB
declare -A wall
run=0
for j in 1 "$jobs" 1 "$jobs"; do
  run=$((run + 1))
  /usr/bin/time -f '%e %U %S %M' -o "$work/time" "$seer" analyze --jobs "$j" --format json "$trace" \
    -o "$work/report.$run.json"
  read -r w user sys kb <"$work/time"
  wall[$run]=$w
  printf '%-5s %4s %9.1f %9.1f %9.0f\n' "$run" "$j" "$w" "$(echo "$user + $sys" | bc -l)" "$(echo "$kb / 1024" | bc -l)"
done
same=yes
for run in 2 3 4; do cmp -s "$work/report.1.json" "$work/report.$run.json" || same=no; done
echo "wall ratio --jobs $jobs / --jobs 1: pair 1 $(echo "${wall[2]} / ${wall[1]}" | bc -l | cut -c1-5)," \
  "pair 2 $(echo "${wall[4]} / ${wall[3]}" | bc -l | cut -c1-5)," \
  "all $(echo "(${wall[2]} + ${wall[4]}) / (${wall[1]} + ${wall[3]})" | bc -l | cut -c1-5) (goal <= 0.6)"
echo "JSON reports identical (cmp): $same; load after: $(cut -d' ' -f1-3 /proc/loadavg)"
[ "$same" = yes ]
