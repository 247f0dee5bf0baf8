#!/usr/bin/env bash
# The cost of `seer daemon` on a real service: memcached (Debian's build, 4
# worker threads) under a C load generator (memcaslap: 2 threads, 16
# connections), native against the daemon launching it (preloaded runtime) with
# the default duty cycle (2s/60s) and with continuous recording, runs
# interleaved. Prints each run's requests/s and CPU time per request (server,
# load generator, daemon and its analysis together: steadier than requests/s
# when other work shares the machine), the ratios of the medians to native,
# and the daemon's own CPU time and peak memory in each run.
#
#   bench/daemon_throughput.sh [BUILD_DIR]
#     ROUNDS=1            native/daemon rounds
#     SECONDS_PER_RUN=60  the issue asks for the average over a minute
#     DUTIES="2s/60s continuous"
#
# Installs memcached and libmemcached-tools with apt-get when missing (root).
# Only 127.0.0.1 is used; every run is bounded by SECONDS_PER_RUN.
set -euo pipefail
build=${1:-build}
seer=$(readlink -f "$build/cli/seer")
rounds=${ROUNDS:-1}
secs=${SECONDS_PER_RUN:-60}
duties=${DUTIES:-2s/60s continuous}
port=${PORT:-22123}

name=daemon_throughput
source "$(dirname "$0")/memcached_lib.sh"
ensure_memcached
[ -x "$seer" ] || { echo "daemon_throughput: $build/cli/seer not built" >&2; exit 2; }

scratch_and_cleanup

server=(memcached -p "$port" -U 0 -t 4 -l 127.0.0.1 -m 256)
[ "$(id -u)" = 0 ] && server+=(-u nobody)
require_free_port

# seer daemon --duty $1 -- memcached; prints "tps cpu_seconds peak_rss_kb windows events skipped cpu_us_per_request".
daemon_run() {
  rm -rf "$tmp/windows"
  "$seer" daemon --listen 127.0.0.1:0 --dir "$tmp/windows" --duty "$1" -- "${server[@]}" 2>"$tmp/daemon.err" &
  daemon_pid=$!
  wait_port
  local memcached_pid; memcached_pid=$(pgrep -P "$daemon_pid" memcached | head -1)
  local server_before; server_before=$(ticks "$memcached_pid")
  local daemon_before; daemon_before=$(ticks "$daemon_pid")
  local tps; tps=$(load)
  local server_used=$(($(ticks "$memcached_pid") - server_before))
  local dport; dport=$(sed -n 's|.*listening on http://127.0.0.1:\([0-9]*\)/.*|\1|p' "$tmp/daemon.err")
  # The daemon's own CPU (user + system, all its threads) and peak memory, before it stops.
  local ticks; ticks=$(ticks "$daemon_pid")
  local daemon_used=$((ticks - daemon_before))
  local hwm; hwm=$(awk '/^VmHWM/ {print $2}' "/proc/$daemon_pid/status")
  local metrics; metrics=$(curl -sf "http://127.0.0.1:$dport/metrics" || true)
  kill -TERM "$daemon_pid" 2>/dev/null || true; wait "$daemon_pid" 2>/dev/null || true; daemon_pid=
  local windows events skipped
  skipped=$(grep '^seer_events_skipped_total' <<<"$metrics" | awk '{s += $NF} END {print s + 0}')
  windows=$(grep '^seer_windows_written_total' <<<"$metrics" | awk '{s += $NF} END {print s + 0}')
  events=$(grep '^seer_events_recorded_total' <<<"$metrics" | awk '{s += $NF} END {print s + 0}')
  # The analysis processes' CPU (those that ended within the run).
  local analysis; analysis=$(grep '^seer_analysis_cpu_seconds_total' <<<"$metrics" | awk '{s += $NF} END {print s + 0}')
  local seer_cpu; seer_cpu=$(awk -v d="$daemon_used" -v a="$analysis" -v hz="$hz" 'BEGIN {print d / hz + a}')
  echo "$tps $(awk -v t="$ticks" -v hz="$hz" 'BEGIN {printf "%.1f", t / hz}') $hwm $windows $events $skipped" \
    "$(cpu_per_request "$tps" "$server_used" "$seer_cpu")"
}

echo "memcached $(memcached -V | awk '{print $2}'), 4 worker threads; memcaslap 2 threads, 16 connections, ${secs} s per run; $(nproc) CPUs, load $(cut -d' ' -f1 /proc/loadavg)"
: >"$tmp/native"
for d in $duties; do : >"$tmp/daemon_${d//\//_}"; done
for r in $(seq "$rounds"); do
  read -r tps cpr < <(native_run)
  echo "$tps" >>"$tmp/native"; echo "$cpr" >>"$tmp/native_cpr"
  printf 'round %d  native                   %8s req/s  (%s CPU us a request)\n' "$r" "$tps" "$cpr"
  for d in $duties; do
    read -r tps cpu rss windows events skipped cpr < <(daemon_run "$d")
    echo "$tps" >>"$tmp/daemon_${d//\//_}"; echo "$cpr" >>"$tmp/cpr_${d//\//_}"
    printf 'round %d  seer daemon --duty %-10s %8s req/s  (%s CPU us a request; daemon: %s s CPU, peak RSS %s kB; %s windows, %s events analysed, %s recorded outside a window)\n' \
      "$r" "$d" "$tps" "$cpr" "$cpu" "$rss" "$windows" "$events" "$skipped"
  done
done
native=$(median <"$tmp/native")
native_cpr=$(median <"$tmp/native_cpr")
for d in $duties; do
  rec=$(median <"$tmp/daemon_${d//\//_}")
  cpr=$(median <"$tmp/cpr_${d//\//_}")
  awk -v d="$d" -v n="$native" -v r="$rec" -v nc="$native_cpr" -v c="$cpr" \
    'BEGIN { printf "median: native %.0f req/s, seer daemon --duty %s %.0f req/s: %.1f%% of native; CPU per request %.2f us against %.2f: %.1f%%\n", n, d, r, 100 * r / n, c, nc, 100 * nc / c }'
done
