#!/usr/bin/env bash
# --watch on a real service: memcached built from Debian's source package
# (`apt-get source memcached`: the release and Debian's patches), once plain
# (gcc -O2 -g, as a user builds it) and once with seer-cc (-O2 -g), 4 worker
# threads, under memcaslap (2 threads, 16 connections). Two parts:
#
# 1. What it costs. Per round, runs interleaved: the plain build natively; the
#    plain build under `seer record --sync=none --watch` (watchpoints alone),
#    under `--sync=preload` (synchronisation recorded) and under
#    `--sync=preload --watch`; the seer-cc build under `--sync=none --watch`.
#    Prints each run's requests/s and samples, then every mode's median and mean
#    as a share of the plain build's native throughput, and the goals' ratios
#    paired by round (each against its comparison's run of the same round).
# 2. What it catches. The plain build under `--sync=none --watch` for
#    CATCH_SECONDS: the distinct race locations caught (first frames of both
#    accesses), each real by construction (the other thread touched the bytes
#    while the sampled access was held); then a full recording of the seer-cc
#    build for FULL_SECONDS and its predicted races (hb): how many of its racy
#    source lines the caught races name.
#
#   bench/watch/memcached.sh [BUILD_DIR]
#     ROUNDS=3            rounds of part 1 (0: skip part 1)
#     MODES="native none preload preload-watch cc-none"  part 1's runs in each
#                         round: native; --sync=none --watch; --sync=preload;
#                         --sync=preload --watch; the seer-cc build under
#                         --sync=none --watch (the paired ratios need their pairs)
#     SECONDS_PER_RUN=30  each run of part 1
#     CATCH_SECONDS=300   part 2's watched run (0: skip part 2)
#     FULL_SECONDS=10     part 2's full recording (some 30M events a second)
#     WATCH=              --watch's share of each thread's time in percent (default: seer's, 2)
#     PIN=0               1: the server (and seer) on CPU 0, the load generator on
#                         CPU 1 (taskset), so that neither takes the other's CPU
#                         (on the 2-vCPU VM of docs/recording.md it hardly narrowed
#                         the runs' spread, and lowered the throughput)
#     MEMCACHED_DIR=      where the source and the two builds are kept between
#                         invocations (default BUILD_DIR/bench-memcached)
#
# Root: installs memcached's build dependencies and memcaslap with apt-get and
# fetches the source from the Debian archive the machine's apt uses. Only
# 127.0.0.1 is used.
set -euo pipefail
build=$(cd "${1:-build}" && pwd)
seer=$build/cli/seer
seer_cc=$build/tools/seer-cc
rounds=${ROUNDS:-3}
only=${MODES:-native none preload preload-watch cc-none}
secs=${SECONDS_PER_RUN:-30}
catch_secs=${CATCH_SECONDS:-300}
full_secs=${FULL_SECONDS:-10}
watch=--watch${WATCH:+=$WATCH}
dir=${MEMCACHED_DIR:-$build/bench-memcached}
port=${PORT:-22123}
pin=${PIN:-0}

name=watch_memcached
source "$(dirname "$0")/../memcached_lib.sh"
# shellcheck source=bench/debian_source.sh
source "$(dirname "$0")/../debian_source.sh"
[ -x "$seer" ] && [ -x "$seer_cc" ] || { echo "$name: $build/cli/seer or $build/tools/seer-cc not built" >&2; exit 2; }

# The source package, unpacked once with Debian's patches applied, and the two builds.
build_memcached() {
  # The seer-cc build carries seer's runtime: built again when that changed
  # (a runtime of another version never claims the recorder's area).
  if [ -x "$dir/plain/memcached" ] && [ -x "$dir/seer-cc/memcached" ] &&
     [ "$dir/seer-cc/memcached" -nt "$build/runtime/libseer_rt.a" ]; then return 0; fi
  if [ "$(id -u)" != 0 ]; then
    echo "$name: memcached's source and build dependencies are fetched with apt-get: run as root" >&2
    exit 2
  fi
  local src
  # No source yet on a fresh machine: find fails, which is no error here.
  src=$(find "$dir/src" -maxdepth 1 -type d -name 'memcached-*' 2>/dev/null | head -1 || true)
  if [ -z "$src" ]; then
    echo "$name: fetching and building memcached in $dir (once)" >&2
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq libevent-dev dpkg-dev libmemcached-tools >/dev/null
    debian_source "$dir" memcached
    src=$(find "$dir/src" -maxdepth 1 -type d -name 'memcached-*' | head -1)
    [ -n "$src" ] || { echo "$name: apt-get source memcached unpacked nothing in $dir/src" >&2; exit 1; }
  else
    echo "$name: building memcached in $dir again (seer's runtime changed)" >&2
  fi
  local kind cc
  for kind in plain seer-cc; do
    cc=gcc
    [ "$kind" = seer-cc ] && cc=$seer_cc
    rm -rf "$dir/$kind.build" && cp -a "$src" "$dir/$kind.build"
    (cd "$dir/$kind.build" && ./configure CC="$cc" CFLAGS="-O2 -g" --disable-dependency-tracking >build.log 2>&1 &&
       make -j"$(nproc)" memcached >>build.log 2>&1) || { tail -30 "$dir/$kind.build/build.log" >&2; exit 1; }
    mkdir -p "$dir/$kind" && cp "$dir/$kind.build/memcached" "$dir/$kind/memcached"
  done
  basename "$src" >"$dir/version"
}

ensure_memcached
build_memcached
require_free_port

scratch_and_cleanup

server_pin=()
if [ "$pin" = 1 ]; then
  server_pin=(taskset -c 0)
  load_pin=(taskset -c 1)
fi
args=(-p "$port" -U 0 -t 4 -l 127.0.0.1 -m 256)
[ "$(id -u)" = 0 ] && args+=(-u nobody)

# run BUILD [seer record options...]: the build (plain or seer-cc) under the load,
# natively without options; prints "requests/s samples cpu_us_per_request"
# (samples: - natively; the CPU of the server, seer and the load generator).
run() {
  local kind=$1; shift
  local bin=$dir/$kind/memcached
  if (($# == 0)); then
    "${server_pin[@]}" "$bin" "${args[@]}" & server_pid=$!
    wait_port
    local before; before=$(ticks "$server_pid")
    local tps; tps=$(load)
    local used=$(($(ticks "$server_pid") - before))
    # Gone before the line is printed: the caller starts the next run on the same port once it reads it.
    kill -TERM "$server_pid" 2>/dev/null || true; wait "$server_pid" 2>/dev/null || true; server_pid=
    echo "$tps - $(cpu_per_request "$tps" "$used" 0)"
    return
  fi
  "${server_pin[@]}" "$seer" record "$@" -o "$tmp/mc.seer" -- "$bin" "${args[@]}" 2>"$tmp/seer.err" >/dev/null & seer_pid=$!
  # The server's CPU and the recorder's (its drain and merger) over the load.
  local mc_pid=
  if wait_port; then mc_pid=$(pgrep -P "$seer_pid" memcached | head -1 || true); fi
  if [ -z "$mc_pid" ]; then
    # Said, and the run left out, rather than the round stopped (the recorder
    # keeps this subshell's output open while it lives).
    echo "$name: seer record $* has no memcached listening on port $port; seer record said:" >&2
    cat "$tmp/seer.err" >&2
    kill -TERM "$seer_pid" 2>/dev/null || true; wait "$seer_pid" 2>/dev/null || true; seer_pid=
    echo "0 - 0"
    return
  fi
  local mc_before seer_before
  mc_before=$(ticks "$mc_pid"); seer_before=$(ticks "$seer_pid")
  local tps; tps=$(load)
  local used=$(($(ticks "$mc_pid") - mc_before + $(ticks "$seer_pid") - seer_before))
  local status=0
  kill -TERM "$seer_pid" 2>/dev/null || true; wait "$seer_pid" 2>/dev/null || status=$?; seer_pid=
  # A run without requests or without seer's summary says why (one such run
  # in 24 at 37bb091 printed nothing, and was not seen again in 8 more).
  if [ -z "$tps" ] || [ "$tps" = 0 ] || ! grep -qE '^seer record: [0-9]+ events' "$tmp/seer.err"; then
    {
      echo "$name: seer record $* gave ${tps:-no} requests/s, exit status $status; memcaslap said:"
      tail -5 "$tmp/load_out"
      echo "seer record said:"
      cat "$tmp/seer.err"
    } >&2
  fi
  grep -qE '^seer record: [0-9]+ events' "$tmp/seer.err" || exit 1
  local samples; samples=$(sed -n "s/.*'s time: \([0-9]*\) samples.*/\1/p" "$tmp/seer.err" | head -1)
  echo "$tps ${samples:--} $(cpu_per_request "$tps" "$used" 0)"
}

# Each mode: key|label|build|seer record options (none: native).
all_modes=(
  "native|native (plain build)|plain|"
  "none|--sync=none $watch|plain|--sync=none $watch"
  "preload|--sync=preload|plain|--sync=preload"
  "preload-watch|--sync=preload $watch|plain|--sync=preload $watch"
  "cc-none|seer-cc --sync=none $watch|seer-cc|--sync=none $watch"
)
# mode_of KEY: its "label|build|options".
mode_of() {
  local m
  for m in "${all_modes[@]}"; do
    if [ "${m%%|*}" = "$1" ]; then echo "${m#*|}"; return 0; fi
  done
  return 1
}
for key in $only; do
  mode_of "$key" >/dev/null || { echo "$name: MODES: no mode '$key' (native none preload preload-watch cc-none)" >&2; exit 2; }
done
echo "memcached $(cat "$dir/version") (Debian source; plain: gcc -O2 -g; seer-cc -O2 -g), 4 worker threads;" \
  "memcaslap 2 threads, 16 connections, ${secs} s per run; $(nproc) CPUs, load $(cut -d' ' -f1 /proc/loadavg)" \
  "$([ "$pin" = 1 ] && echo "; pinned: server and seer on CPU 0, load on CPU 1")"
if [ "$rounds" -gt 0 ]; then
echo
echo "Part 1: what it costs (runs interleaved)"
for key in $only; do : >"$tmp/tps.$key"; : >"$tmp/cpu.$key"; done
for r in $(seq "$rounds"); do
  for key in $only; do
    IFS='|' read -r label kind options <<<"$(mode_of "$key")"
    # shellcheck disable=SC2086
    read -r tps samples cpu < <(run "$kind" $options)
    echo "$tps" >>"$tmp/tps.$key"
    echo "$cpu" >>"$tmp/cpu.$key"
    printf 'round %d  %-34s %8s req/s  %7s CPU us a request  samples %s\n' "$r" "$label" "$tps" "$cpu" "$samples"
  done
done
for key in $only; do
  printf '%-34s median %8.0f req/s, %6.2f CPU us a request; mean %8.0f req/s\n' "$(mode_of "$key" | cut -d'|' -f1)" \
    "$(median <"$tmp/tps.$key")" "$(median <"$tmp/cpu.$key")" "$(mean <"$tmp/tps.$key")"
done
# The goals' ratios, paired by round: each run against the one it is compared
# with in the same round (the machine's throughput drifts from round to round
# far more than within one); the median of the per-round ratios. Beside it the
# ratio of the medians of CPU time a request (the comparison's over the
# mode's): what the throughput ratio would be on a machine with nothing else
# to run, and far steadier on this one.
paired() {
  [ -s "$tmp/tps.$2" ] && [ -s "$tmp/tps.$3" ] || return 0
  paste "$tmp/tps.$2" "$tmp/tps.$3" | awk '{ print 100 * $2 / $1 }' >"$tmp/ratios"
  printf '%-58s median of %d rounds: %5.1f%%  (rounds: %s); by CPU a request: %5.1f%%\n' "$1" "$rounds" \
    "$(median <"$tmp/ratios")" "$(awk '{ printf "%s%.1f", (NR > 1 ? " " : ""), $1 }' "$tmp/ratios")" \
    "$(awk -v a="$(median <"$tmp/cpu.$2")" -v b="$(median <"$tmp/cpu.$3")" 'BEGIN { print 100 * a / b }')"
}
echo "paired by round:"
paired "--sync=none $watch, of native" native none
paired "--sync=preload, of native" native preload
paired "--sync=preload $watch, of --sync=preload" preload preload-watch
paired "seer-cc --sync=none $watch, of the plain build native" native cc-none
fi

[ "$catch_secs" -gt 0 ] || exit 0
echo
echo "Part 2: what it catches"
# race_lines JSON: one line per caught or predicted pair: "first-frame-A <-> first-frame-B".
race_lines() {
  python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))
def where(e):
    if e.get("thread") is None: return "(a thread not seen)"
    f = e.get("function") or "?"
    file = (e.get("file") or "?").rsplit("/", 1)[-1]
    return "%s %s:%s" % (f, file, e.get("line") or "?")
for engine, races in r.get("races", {}).items():
    for p in races.get("pairs", []):
        a, b = sorted([where(p["first"]), where(p["second"])])
        print("%s <-> %s\t%d" % (a, b, p.get("occurrences", 1)))
' "$1" | sort | awk -F'\t' '{ n[$1] += $2 } END { for (k in n) print k "\t" n[k] }' | sort
}
secs=$catch_secs
read -r tps samples _ < <(run plain --sync=none "$watch")
cp "$tmp/mc.seer" "$tmp/catch.seer"
grep -E "watch|sampl" "$tmp/seer.err" | sed 's/^/  /'
"$seer" analyze --analysis watch --format json "$tmp/catch.seer" >"$tmp/catch.json"
race_lines "$tmp/catch.json" >"$tmp/caught"
echo "plain build, --sync=none $watch, ${catch_secs} s: $tps req/s, $samples samples, $(wc -l <"$tmp/caught") distinct race locations caught:"
awk -F'\t' '{ printf "  %s  (%d times)\n", $1, $2 }' "$tmp/caught"

secs=$full_secs
read -r tps _ < <(run seer-cc --sync=auto)
echo "seer-cc build, full recording (--sync=auto: inproc), ${full_secs} s: $tps req/s; $(grep -E '^seer record: [0-9]+ events' "$tmp/seer.err")"
/usr/bin/time -f "%e s, %M KiB" -o "$tmp/analyze.time" "$seer" analyze --analysis hb --format json "$tmp/mc.seer" >"$tmp/full.json"
race_lines "$tmp/full.json" >"$tmp/predicted"
echo "  hb predicts $(wc -l <"$tmp/predicted") distinct race locations (analysis: $(cat "$tmp/analyze.time")):"
awk -F'\t' '{ printf "  %s\n", $1 }' "$tmp/predicted"
# Source lines: a caught race names the held access's line, and the other's when its thread was seen.
lines_of() { cut -f1 "$1" | sed 's/ <-> /\n/' | { grep -v 'not seen' || true; } | awk '{ print $NF }' | sort -u; }
lines_of "$tmp/caught" >"$tmp/caught.lines"
lines_of "$tmp/predicted" >"$tmp/predicted.lines"
both=$(comm -12 "$tmp/caught.lines" "$tmp/predicted.lines" | wc -l)
echo "caught racy source lines: $(wc -l <"$tmp/caught.lines"), of them among the full recording's: $both;" \
  "the full recording's racy source lines: $(wc -l <"$tmp/predicted.lines"), caught: $both"
