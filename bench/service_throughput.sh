#!/usr/bin/env bash
# A real service under seer record: memcached (Debian's build: dynamically
# linked, not built with seer's wrappers, 4 worker threads) under a C load
# generator (memcaslap: 2 threads, 16 connections), native against recorded,
# runs interleaved (native, seer, native, seer, ...). Prints each run's
# requests/s and CPU time a request (server, recorder and load generator), the
# ratios of the medians and of the means, and the events recorded and lost.
#
#   bench/service_throughput.sh [BUILD_DIR]
#     ROUNDS=3         native/recorded pairs (0: only the attached runs)
#     SECONDS_PER_RUN=30  long enough that the recorder pays its way: in the first
#                      seconds its merger leaves its work in the spool (docs/recording.md)
#     MODES="auto"     seer record modes to measure in each round (--sync=...):
#                      auto picks preload for memcached; add ebpf for the uprobe path
#     ATTACH=1         also record a running memcached with -p PID
#     ATTACH_MODES="inject"  how (--sync=...): inject (the runtime loaded into
#                      the process, its calls redirected; what auto picks), ebpf
#                      (uprobes), watch (--sync=none --watch: the injected
#                      runtime's sampler alone); each on a fresh server: load
#                      before the attach, while recorded, after the detach
#     ATTACH_WAIT=10   at most this many seconds between starting `seer record -p`
#                      and the load (inject: until the runtime's detach thread is
#                      there; ebpf: the whole wait, attaching some 60 uprobes takes
#                      seconds here)
#
# Installs memcached and libmemcached-tools with apt-get when they are missing
# (root). The eBPF runs (ebpf, ATTACH) need root; the default mode does not.
# Only 127.0.0.1 is used; every run is bounded by SECONDS_PER_RUN.
set -euo pipefail
build=${1:-build}
seer=$(readlink -f "$build/cli/seer")
rounds=${ROUNDS:-3}
secs=${SECONDS_PER_RUN:-30}
modes=${MODES:-auto}
attach=${ATTACH:-1}
attach_wait=${ATTACH_WAIT:-10}
attach_modes=${ATTACH_MODES:-inject}
port=${PORT:-22122}

name=service_throughput
source "$(dirname "$0")/memcached_lib.sh"
ensure_memcached
[ -x "$seer" ] || { echo "service_throughput: $build/cli/seer not built" >&2; exit 2; }

scratch_and_cleanup

server=(memcached -p "$port" -U 0 -t 4 -l 127.0.0.1 -m 256)
[ "$(id -u)" = 0 ] && server+=(-u nobody)

require_free_port

# seer record --sync=$1 -- memcached; prints "tps cpu_us_per_request recorder_us_per_request events lost mode".
seer_run() {
  "$seer" record --sync="$1" -o "$tmp/mc.seer" -- "${server[@]}" 2>"$tmp/seer.err" & seer_pid=$!
  wait_port
  local mc_pid; mc_pid=$(pgrep -P "$seer_pid" memcached | head -1)
  local server_before; server_before=$(ticks "$mc_pid")
  local seer_before; seer_before=$(ticks "$seer_pid")
  local tps; tps=$(load)
  local server_used=$(($(ticks "$mc_pid") - server_before))
  local seer_cpu; seer_cpu=$(awk -v t="$(($(ticks "$seer_pid") - seer_before))" -v hz="$hz" 'BEGIN { print t / hz }')
  kill -TERM "$seer_pid" 2>/dev/null || true; wait "$seer_pid" 2>/dev/null || true; seer_pid=
  local cpu; cpu="$(cpu_per_request "$tps" "$server_used" "$seer_cpu")"
  cpu+=" $(awk -v c="$seer_cpu" -v tps="$tps" -v s="$secs" 'BEGIN { printf "%.2f", (tps > 0) ? c / (tps * s) * 1e6 : 0 }')"
  local summary; summary=$(grep -E '^seer record: [0-9]+ events' "$tmp/seer.err" || true)
  [ -n "$summary" ] || { cat "$tmp/seer.err" >&2; echo "$tps $cpu ? ? ?"; return; }
  echo "$tps $cpu $(echo "$summary" | sed -n 's/^seer record: \([0-9]*\) events, \([0-9]*\) lost, [0-9]* threads (\([^)]*\)).*/\1 \2 \3/p' | tr -d ',')"
}

echo "memcached $(memcached -V | awk '{print $2}'), 4 worker threads; memcaslap 2 threads, 16 connections, ${secs} s per run; $(nproc) CPUs, load $(cut -d' ' -f1 /proc/loadavg)"
: >"$tmp/native"
for m in $modes; do : >"$tmp/seer_$m"; done
for r in $(seq "$rounds"); do
  read -r tps cpu < <(native_run)
  echo "$tps" >>"$tmp/native"; echo "$cpu" >>"$tmp/native.cpu"
  printf 'round %d  native          %8s req/s  %6s us CPU a request\n' "$r" "$tps" "$cpu"
  for m in $modes; do
    read -r tps cpu reccpu events lost mode < <(seer_run "$m")
    echo "$tps" >>"$tmp/seer_$m"; echo "$cpu" >>"$tmp/seer_$m.cpu"
    printf 'round %d  seer --sync=%-5s %8s req/s  %6s us CPU a request, %s of them in the recorder  (%s: %s events, %s lost)\n' \
      "$r" "$m" "$tps" "$cpu" "$reccpu" "$mode" "$events" "$lost"
  done
done
# Means as well as medians: three rounds on a shared machine move by +-10 %.
if [ "$rounds" -gt 0 ]; then
native=$(median <"$tmp/native")
native_mean=$(mean <"$tmp/native")
native_cpu=$(mean <"$tmp/native.cpu")
for m in $modes; do
  rec=$(median <"$tmp/seer_$m")
  rec_mean=$(mean <"$tmp/seer_$m")
  rec_cpu=$(mean <"$tmp/seer_$m.cpu")
  awk -v m="$m" -v n="$native" -v r="$rec" -v nm="$native_mean" -v rm="$rec_mean" -v nc="$native_cpu" -v rc="$rec_cpu" \
    'BEGIN { printf "median: native %.0f req/s, seer --sync=%s %.0f req/s: %.1f%% of native\n", n, m, r, 100 * r / n;
             printf "mean: native %.0f req/s, seer --sync=%s %.0f req/s: %.1f%% of native; CPU a request %.2f us against %.2f: %.1f%%\n",
                    nm, m, rm, 100 * rm / nm, rc, nc, 100 * nc / rc }'
done
fi

if [ "$attach" = 1 ]; then
  if [ "$(id -u)" != 0 ]; then
    echo "attach (-p PID): skipped, needs root"
    exit 0
  fi
  # until the injected runtime's detach thread exists in process $1 (at most $attach_wait s)
  wait_injected() {
    for _ in $(seq $((attach_wait * 10))); do
      grep -qx seer-detach /proc/"$1"/task/*/comm 2>/dev/null && return 0
      sleep 0.1
    done
    return 1
  }
  # One running memcached per mode: load before, while `seer record -p` records it, after the detach.
  for am in $attach_modes; do
    "${server[@]}" & server_pid=$!
    wait_port
    before=$(load)
    opts=(--sync="$am")
    [ "$am" = watch ] && opts=(--sync=none --watch)
    "$seer" record "${opts[@]}" -o "$tmp/attach.seer" -p "$server_pid" 2>"$tmp/attach.err" & seer_pid=$!
    if [ "$am" != ebpf ]; then wait_injected "$server_pid" || echo "  (no injected runtime after ${attach_wait} s)"; else sleep "$attach_wait"; fi
    during=$(load)
    kill -INT "$seer_pid" 2>/dev/null || true; wait "$seer_pid" 2>/dev/null || true; seer_pid=
    after=$(load)
    alive=yes; kill -0 "$server_pid" 2>/dev/null || alive=no
    kill -TERM "$server_pid" 2>/dev/null || true; wait "$server_pid" 2>/dev/null || true; server_pid=
    summary=$(grep -E '^seer record: ([0-9]+ events|watch:)' "$tmp/attach.err" || cat "$tmp/attach.err")
    awk -v m="${opts[*]}" -v b="$before" -v d="$during" -v a="$after" -v alive="$alive" \
      'BEGIN { printf "attach -p PID %s: before %d req/s, recorded %d req/s, after detach %d req/s: %.1f%% of before, %.1f%% of the mean of before and after (server alive: %s)\n", m, b, d, a, 100 * d / b, 200 * d / (b + a), alive }'
    echo "  $summary"
  done
fi
