#!/usr/bin/env bash
# CP against WCP (the paper's, --paper: the relation CP refines) on traces made
# by `seer gen` of growing length: events/s of `seer analyze` (decode included)
# and its peak resident memory, per size, and the ratios measured in the same
# run. Usage: bench/cp_scaling.sh [BUILD_DIR] [SIZES...]  (default 1M 10M 100M)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
shift || true
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(1000000 10000000 100000000)
seer=$build/cli/seer
dir=$(mktemp -d /tmp/seer_cp_scaling.XXXXXX)
trap 'rm -rf "$dir"' EXIT

run() {  # run ENGINE_ARGS...: prints "seconds peak_KiB"
  local out=$dir/time.txt
  /usr/bin/time -f "%e %M" -o "$out" "$seer" analyze "$dir/trace.seer" --format json "$@" > "$dir/report.json"
  cat "$out"
}

printf "%12s %8s %12s %10s %8s %12s %10s %9s %9s\n" events engine events/s peak_MiB \
  engine events/s peak_MiB time_x mem_x
for n in "${sizes[@]}"; do
  "$seer" gen --events "$n" --seed 1 -o "$dir/trace.seer"
  read -r wt wm < <(run --analysis wcp --paper)
  read -r ct cm < <(run --analysis cp)
  awk -v n="$n" -v wt="$wt" -v wm="$wm" -v ct="$ct" -v cm="$cm" 'BEGIN {
    printf "%12d %8s %12.0f %10.1f %8s %12.0f %10.1f %9.2f %9.2f\n", n, "wcp", n / wt, wm / 1024, "cp", n / ct,
           cm / 1024, ct / wt, cm / wm }'
  rm -f "$dir/trace.seer"
done
