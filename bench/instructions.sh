#!/usr/bin/env bash
# Instructions per event of `seer analyze` (decode + engines, the driver's
# RunAnalyses only: no start-up, no report), counted by callgrind. Unlike CPU
# time, the count does not depend on what else runs on the machine, so it is the
# figure to compare before and after a change to the decoder or an engine.
# Usage: bench/instructions.sh [BUILD_DIR] [EVENTS] [ANALYSES...]
#   default: build, 300000 events, hb shb wcp lockset w3-linear and all five at once
# The trace is `seer gen` shaped like the issue's target: 4 threads, 3 locks,
# 1,000 variables, 1,000 locations. Needs valgrind (a dev tool, not a dependency).
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
events=${2:-300000}
shift $(( $# > 2 ? 2 : $# ))
analyses=("$@")
[ ${#analyses[@]} -gt 0 ] || analyses=(hb shb wcp lockset w3-linear hb,shb,wcp,lockset,w3-linear)
command -v valgrind >/dev/null || { echo "valgrind is not installed (apt-get install valgrind)" >&2; exit 2; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$build/cli/seer" gen --events "$events" --threads 4 --locks 3 --vars 1000 --locations 1000 --seed 1 \
  --format seer -o "$work/trace.seer"
printf '%-30s %14s %12s\n' analysis instructions per_event
for a in "${analyses[@]}"; do
  valgrind --tool=callgrind --callgrind-out-file="$work/cg.out" '--toggle-collect=seer::RunAnalyses*' \
    "$build/cli/seer" analyze -a "$a" --no-symbolize -o /dev/null "$work/trace.seer" 2>"$work/log" || {
    cat "$work/log" >&2
    exit 1
  }
  ir=$(sed -n 's/.*Collected : \([0-9]*\).*/\1/p' "$work/log")
  printf '%-30s %14s %12.1f\n' "$a" "$ir" "$(echo "$ir / $events" | bc -l)"
done
