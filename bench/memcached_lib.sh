# What the memcached benchmarks share (service_throughput.sh, daemon_throughput.sh,
# watch/memcached.sh): installing memcached and its load generator, waiting for
# the server's port, the load and its CPU time, CPU time per request, the median
# and mean of a column of figures, a native run, the scratch folder and the
# cleanup. Sourced; the caller sets $port, $name, $secs and the server's command
# line in the array `server` (scratch_and_cleanup sets $tmp).

# Installs memcached and memcaslap with apt-get when missing (root), else exits 2.
ensure_memcached() {
  if command -v memcached >/dev/null && command -v memcaslap >/dev/null; then return 0; fi
  if [ "$(id -u)" != 0 ]; then
    echo "$name: memcached and memcaslap are missing; as root: apt-get install memcached libmemcached-tools" >&2
    exit 2
  fi
  apt-get update -qq >/dev/null
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq memcached libmemcached-tools >/dev/null
}

# A scratch folder in $tmp (readable by the server's user), removed on exit
# with whatever still runs: the recorder ($seer_pid) or the daemon
# ($daemon_pid) first, then the server ($server_pid).
scratch_and_cleanup() {
  tmp=$(mktemp -d)
  chmod 755 "$tmp"
  server_pid= seer_pid= daemon_pid=
  trap cleanup_runs EXIT
}
cleanup_runs() {
  local pid
  for pid in "$seer_pid" "$daemon_pid" "$server_pid"; do
    if [ -n "$pid" ]; then kill -TERM "$pid" 2>/dev/null && wait "$pid" 2>/dev/null; fi
  done
  rm -rf "$tmp"
}

# Exits 2 when something listens on $port already.
require_free_port() {
  if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
    echo "$name: port $port is in use already (PORT=... to choose another)" >&2
    exit 2
  fi
}

wait_port() {  # until memcached answers on the port (at most 20 s)
  for _ in $(seq 200); do
    if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then return 0; fi
    sleep 0.1
  done
  echo "$name: memcached did not open port $port" >&2
  return 1
}

median() { sort -n | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
mean() { awk '{ s += $1 } END { print s / NR }'; }

hz=$(getconf CLK_TCK)
ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }  # user + system time of a process, all its threads

# Runs the load; prints its requests/s, and leaves its own CPU seconds in $tmp/load_cpu.
# The caller may set the array load_pin (e.g. taskset -c 1) to place it.
load_pin=()
load() {
  local TIMEFORMAT='%U %S'
  { time "${load_pin[@]}" memcaslap -s "127.0.0.1:$port" -T 2 -c 16 -t "${secs}s" >"$tmp/load_out" 2>&1; } 2>"$tmp/load_time"
  awk '{print $1 + $2}' "$tmp/load_time" >"$tmp/load_cpu"
  sed -n 's/^Run time: .* TPS: \([0-9]*\).*/\1/p' "$tmp/load_out" | tail -1
}

# CPU microseconds per request: the server's $2 ticks and the load generator's
# CPU over the load, plus $3 seconds of seer's, for $1 requests/s. On a machine
# that both keep busy it is steadier than requests/s when other work shares the
# CPUs: the native figure over the recorded one estimates the throughput ratio
# on an otherwise idle machine.
cpu_per_request() {
  awk -v tps="$1" -v s="$secs" -v server="$2" -v seer="$3" -v l="$(cat "$tmp/load_cpu")" -v hz="$hz" \
    'BEGIN { printf "%.2f", (tps > 0) ? (server / hz + seer + l) / (tps * s) * 1e6 : 0 }'
}

# The server alone under the load (its pid in $server_pid while it runs).
# Prints "tps cpu_us_per_request".
native_run() {
  "${server[@]}" & server_pid=$!
  wait_port
  local before; before=$(ticks "$server_pid")
  local tps; tps=$(load)
  local used=$(($(ticks "$server_pid") - before))
  kill -TERM "$server_pid" 2>/dev/null || true; wait "$server_pid" 2>/dev/null || true; server_pid=
  echo "$tps $(cpu_per_request "$tps" "$used" 0)"
}
