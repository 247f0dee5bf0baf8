#!/usr/bin/env bash
# A real service under seer record: memcached (Debian's build: dynamically
# linked, not built with seer's wrappers, 4 worker threads) under a C load
# generator (memcaslap: 2 threads, 16 connections), native against recorded,
# runs interleaved (native, seer, native, seer, ...). Prints each run's
# requests/s and CPU time a request (server, recorder and load generator), the
# ratios of the medians and of the means, and the events recorded and lost.
#
#   bench/service_throughput.sh [BUILD_DIR]
#     ROUNDS=3         native/recorded pairs
#     SECONDS_PER_RUN=30  long enough that the recorder pays its way: in the first
#                      seconds its merger leaves its work in the spool (docs/recording.md)
#     MODES="auto"     seer record modes to measure in each round (--sync=...):
#                      auto picks preload for memcached; add ebpf for the uprobe path
#     ATTACH=1         also record a running memcached with -p PID
#     ATTACH_MODES="inject"  how (--sync=...): inject (the runtime loaded into
#                      the process, its calls redirected; what auto picks), ebpf
#                      (uprobes); each on a fresh server: load before the
#                      attach, while recorded, after the detach
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

tmp=$(mktemp -d)
chmod 755 "$tmp"
server_pid=
seer_pid=
cleanup() {
  [ -n "$seer_pid" ] && kill -TERM "$seer_pid" 2>/dev/null && wait "$seer_pid" 2>/dev/null
  [ -n "$server_pid" ] && kill -TERM "$server_pid" 2>/dev/null && wait "$server_pid" 2>/dev/null
  rm -rf "$tmp"
}
trap cleanup EXIT

server=(memcached -p "$port" -U 0 -t 4 -l 127.0.0.1 -m 256)
[ "$(id -u)" = 0 ] && server+=(-u nobody)

require_free_port

load() {  # prints the requests/s memcaslap reached; its CPU seconds go to $tmp/load.cpu
  (
    memcaslap -s "127.0.0.1:$port" -T 2 -c 16 -t "${secs}s" >"$tmp/load.log" 2>&1
    times >"$tmp/load.times"  # not into a pipe: its subshell would have no children
  )
  # The second line: the children's user and system time, as 0m1.234s 0m0.567s.
  awk 'NR == 2 { gsub(/s/, "", $1); gsub(/s/, "", $2); split($1, u, "m"); split($2, s, "m");
                 printf "%.2f\n", u[1] * 60 + u[2] + s[1] * 60 + s[2] }' "$tmp/load.times" >"$tmp/load.cpu"
  sed -n 's/^Run time: .* TPS: \([0-9]*\).*/\1/p' "$tmp/load.log" | tail -1
}

# CPU seconds (user + system) process $1 has used so far.
cpu_of() { awk -v hz="$(getconf CLK_TCK)" '{ printf "%.2f\n", ($14 + $15) / hz }' "/proc/$1/stat" 2>/dev/null || echo 0; }

# CPU time per request in microseconds: server, recorder and load generator
# together, from CPU seconds $1 over $2 requests/s for $secs s. On a shared
# machine it moves less than requests/s do.
per_request() { awk -v c="$1" -v t="$2" -v s="$secs" 'BEGIN { printf "%.2f", (t > 0) ? c / (t * s) * 1e6 : 0 }'; }

# prints "tps cpu_us_per_request"
native_run() {
  "${server[@]}" & server_pid=$!
  wait_port
  local c0; c0=$(cpu_of "$server_pid")
  local tps; tps=$(load)
  local c1; c1=$(cpu_of "$server_pid")
  kill -TERM "$server_pid" 2>/dev/null || true; wait "$server_pid" 2>/dev/null || true; server_pid=
  echo "$tps $(per_request "$(awk -v a="$c0" -v b="$c1" -v l="$(cat "$tmp/load.cpu")" 'BEGIN { print b - a + l }')" "$tps")"
}

# seer record --sync=$1 -- memcached; prints "tps cpu_us_per_request recorder_us_per_request events lost mode".
seer_run() {
  "$seer" record --sync="$1" -o "$tmp/mc.seer" -- "${server[@]}" 2>"$tmp/seer.err" & seer_pid=$!
  wait_port
  local mc_pid; mc_pid=$(pgrep -P "$seer_pid" memcached | head -1)
  local s0 r0; s0=$(cpu_of "$mc_pid"); r0=$(cpu_of "$seer_pid")
  local tps; tps=$(load)
  local s1 r1; s1=$(cpu_of "$mc_pid"); r1=$(cpu_of "$seer_pid")
  kill -TERM "$seer_pid" 2>/dev/null || true; wait "$seer_pid" 2>/dev/null || true; seer_pid=
  local rec; rec=$(awk -v a="$r0" -v b="$r1" 'BEGIN { print b - a }')
  local all; all=$(awk -v a="$s0" -v b="$s1" -v r="$rec" -v l="$(cat "$tmp/load.cpu")" 'BEGIN { print b - a + r + l }')
  local cpu; cpu="$(per_request "$all" "$tps") $(per_request "$rec" "$tps")"
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
native=$(median <"$tmp/native")
native_mean=$(awk '{ s += $1 } END { print s / NR }' "$tmp/native")
native_cpu=$(awk '{ s += $1 } END { print s / NR }' "$tmp/native.cpu")
for m in $modes; do
  rec=$(median <"$tmp/seer_$m")
  rec_mean=$(awk '{ s += $1 } END { print s / NR }' "$tmp/seer_$m")
  rec_cpu=$(awk '{ s += $1 } END { print s / NR }' "$tmp/seer_$m.cpu")
  awk -v m="$m" -v n="$native" -v r="$rec" -v nm="$native_mean" -v rm="$rec_mean" -v nc="$native_cpu" -v rc="$rec_cpu" \
    'BEGIN { printf "median: native %.0f req/s, seer --sync=%s %.0f req/s: %.1f%% of native\n", n, m, r, 100 * r / n;
             printf "mean: native %.0f req/s, seer --sync=%s %.0f req/s: %.1f%% of native; CPU a request %.2f us against %.2f: %.1f%%\n",
                    nm, m, rm, 100 * rm / nm, rc, nc, 100 * nc / rc }'
done

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
    "$seer" record --sync="$am" -o "$tmp/attach.seer" -p "$server_pid" 2>"$tmp/attach.err" & seer_pid=$!
    if [ "$am" = inject ]; then wait_injected "$server_pid" || echo "  (no injected runtime after ${attach_wait} s)"; else sleep "$attach_wait"; fi
    during=$(load)
    kill -INT "$seer_pid" 2>/dev/null || true; wait "$seer_pid" 2>/dev/null || true; seer_pid=
    after=$(load)
    alive=yes; kill -0 "$server_pid" 2>/dev/null || alive=no
    kill -TERM "$server_pid" 2>/dev/null || true; wait "$server_pid" 2>/dev/null || true; server_pid=
    summary=$(grep -E '^seer record: [0-9]+ events' "$tmp/attach.err" || cat "$tmp/attach.err")
    awk -v m="$am" -v b="$before" -v d="$during" -v a="$after" -v alive="$alive" \
      'BEGIN { printf "attach -p PID --sync=%s: before %d req/s, recorded %d req/s, after detach %d req/s: %.1f%% of before, %.1f%% of the mean of before and after (server alive: %s)\n", m, b, d, a, 100 * d / b, 200 * d / (b + a), alive }'
    echo "  $summary"
  done
fi
