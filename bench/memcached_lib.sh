# What the memcached benchmarks share (service_throughput.sh, daemon_throughput.sh):
# installing memcached and its load generator, waiting for the server's port, the
# median of a column of figures. Sourced; the caller sets $port and $name.

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
