#!/usr/bin/env bash
# `seer analyze --shard I/N` + `seer merge` (issue #33): the total CPU of N
# shards and their merge against one run, for N = 1, 2, 4, on a generated
# trace (the options of issue #33's 3M-event trace; default 10M events), the
# default analyses, every process with --jobs 1 and run one after another (the
# CPU is the figure; a cluster runs the shards side by side). Prints per N the
# shards' summed CPU, the slowest shard (a cluster's wall time, one node per
# shard), the merge's CPU, the ratio of all to one run (goal: <= 1.2), and
# whether the merged JSON report is one run's (cmp). The decode alone is timed
# too (`seer info --json` decodes every event): what each extra shard pays
# again. The machine is shared: say what else ran when quoting the figures.
# Every process runs REPEAT times (default 3) and its least CPU counts: on a
# shared machine a process's CPU time varies by a third from run to run.
# Usage: [REPEAT=3] bench/shard_cost.sh [BUILD_DIR] [EVENTS] [SHARD COUNTS...]
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build} events=${2:-10000000}
shift $(($# < 2 ? $# : 2))
counts=("$@")
[ ${#counts[@]} -gt 0 ] || counts=(1 2 4)
seer=$build/cli/seer
[ -x "$seer" ] || { echo "shard_cost: build seer first" >&2; exit 2; }
[ -x /usr/bin/time ] || { echo "shard_cost: needs /usr/bin/time (Debian: time)" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$seer" gen --events "$events" --threads 8 --locks 8 --vars 2000 --locations 500 --seed 3 -o "$work/t.seer" \
  >/dev/null
echo "trace: seer gen --events $events --threads 8 --locks 8 --vars 2000 --locations 500 --seed 3" \
  "($(du -m "$work/t.seer" | cut -f1) MB); load before: $(cut -d' ' -f1-3 /proc/loadavg)"

repeat=${REPEAT:-3}
cpu() {  # cpu CPU_VAR WALL_VAR COMMAND...: runs it REPEAT times: least CPU seconds (user + sys), its wall
  local -n cpu_out=$1 wall_out=$2
  shift 2
  local r wall user sys this
  cpu_out=""
  for ((r = 0; r < repeat; r++)); do
    /usr/bin/time -f '%e %U %S' -o "$work/time" "$@" >/dev/null
    read -r wall user sys <"$work/time"
    this=$(echo "$user + $sys" | bc -l)
    if [ -z "$cpu_out" ] || [ "$(echo "$this < $cpu_out" | bc -l)" = 1 ]; then
      cpu_out=$this
      wall_out=$wall
    fi
  done
}

cpu decode_cpu decode_wall "$seer" info --json "$work/t.seer"
cpu one_cpu one_wall "$seer" analyze --jobs 1 --no-progress --format json "$work/t.seer" -o "$work/one.json"
printf 'decode alone (seer info --json): %.1f CPU s; one run (seer analyze --jobs 1): %.1f CPU s, %.1f s wall\n' \
  "$decode_cpu" "$one_cpu" "$one_wall"
printf '%6s %12s %14s %10s %12s %8s\n' shards shards_cpu_s slowest_cpu_s merge_cpu_s total/one same
for n in "${counts[@]}"; do
  sum=0 slowest=0 parts=()
  for ((i = 0; i < n; i++)); do
    cpu c w "$seer" analyze --jobs 1 --no-progress --shard "$i/$n" "$work/t.seer" -o "$work/part-$i.json"
    sum=$(echo "$sum + $c" | bc -l)
    slowest=$(echo "if ($c > $slowest) $c else $slowest" | bc -l)
    parts+=("$work/part-$i.json")
  done
  cpu merge_cpu merge_wall "$seer" merge "${parts[@]}" --format json -o "$work/merged.json"
  same=no
  cmp -s "$work/one.json" "$work/merged.json" && same=yes
  printf '%6d %12.1f %14.1f %10.1f %12.3f %8s\n' "$n" "$sum" "$slowest" "$merge_cpu" \
    "$(echo "($sum + $merge_cpu) / $one_cpu" | bc -l)" "$same"
  rm -f "${parts[@]}" "$work/merged.json"
  [ "$same" = yes ] || { echo "shard_cost: the merge of $n shards differs from one run" >&2; exit 1; }
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
