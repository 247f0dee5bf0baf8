#!/usr/bin/env bash
# SeqCheck's two engines on the generated trace of issue #33 (3M events, 8
# threads, 8 locks): per engine the events, the CPU seconds (user + sys) of
# `seer analyze -a ENGINE`, events per CPU second, the peak RSS, and the ratios
# to the goal (>= 5M events per CPU second, <= 500 MB). The machine is shared:
# CPU time, not wall time, is the figure (docs/seqcheck.md, "Cost").
# Usage: bench/seqcheck_speed.sh [BUILD_DIR] [EVENTS] [JOBS]  (JOBS: seer's --jobs; default: seer's own)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build} events=${2:-3000000} jobs=${3:-}
seer=$build/cli/seer
[ -x "$seer" ] || { echo "seqcheck_speed: build seer first" >&2; exit 2; }
[ -x /usr/bin/time ] || { echo "seqcheck_speed: needs /usr/bin/time (Debian: time)" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$seer" gen --events "$events" --threads 8 --locks 8 --vars 2000 --locations 500 --seed 3 -o "$work/g3.seer"
goal_rate=5000000 goal_mb=500
printf '%-10s %10s %8s %14s %8s %12s %10s\n' engine events cpu_s events/cpu_s peak_MB rate/goal MB/goal
for engine in deadlock atomicity; do
  /usr/bin/time -f '%U %S %M' -o "$work/time" "$seer" analyze ${jobs:+--jobs "$jobs"} -a "$engine" "$work/g3.seer" >/dev/null
  read -r user sys kb <"$work/time"
  cpu=$(echo "$user + $sys" | bc -l)
  rate=$(echo "$events / $cpu" | bc -l)
  mb=$(echo "$kb / 1024" | bc -l)
  printf '%-10s %10d %8.2f %14.0f %8.0f %12.2f %10.2f\n' "$engine" "$events" "$cpu" "$rate" "$mb" \
    "$(echo "$rate / $goal_rate" | bc -l)" "$(echo "$mb / $goal_mb" | bc -l)"
done
echo "(rate/goal >= 1 and MB/goal <= 1 meet the goal of issue #33)"
