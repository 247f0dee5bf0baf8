#!/usr/bin/env bash
# What `seer record` following a program's processes costs a fork
# (docs/recording.md, "Processes"): bench/recorder/fork_loop forks N children
# that exit at once, native and recorded with the preloaded runtime (each child
# then asks for rings, gets a trace of its own and is merged), interleaved
# native, recorded, native, recorded. Prints the wall milliseconds per fork of
# each run and how many child traces the recorded runs wrote. SYNC=ebpf (root)
# records with the BPF tracer instead (recorder/ebpf/ebpf_family.h: each child
# is stopped until probes of its own are attached); use a smaller N there.
# Usage: [SYNC=preload|ebpf] bench/recorder/fork_cost.sh [BUILD_DIR] [N]
set -euo pipefail
cd "$(dirname "$0")/../.."
build=$(cd "${1:-build}" && pwd)
n=${2:-200}
sync=${SYNC:-preload}
seer=$build/cli/seer
loop=$build/bench/recorder/fork_loop
[ -x "$seer" ] && [ -x "$loop" ] || { echo "fork_cost: build seer and fork_loop first (ninja -C $build)" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
ms() { date +%s%N; }
printf '%-9s %6s %12s %7s\n' run forks ms_per_fork traces
for round in 1 2; do
  t0=$(ms); "$loop" "$n"; t1=$(ms)
  awk -v n="$n" -v d=$((t1 - t0)) 'BEGIN { printf "%-9s %6d %12.3f %7s\n", "native", n, d / 1e6 / n, "-" }'
  rm -f "$work"/*.seer
  t0=$(ms); "$seer" record -q --sync="$sync" -o "$work/run.seer" -- "$loop" "$n"; t1=$(ms)
  traces=$(find "$work" -name 'run.*.seer' | wc -l)
  awk -v n="$n" -v d=$((t1 - t0)) -v t="$traces" 'BEGIN { printf "%-9s %6d %12.3f %7d\n", "recorded", n, d / 1e6 / n, t }'
done
