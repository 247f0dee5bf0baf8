#!/usr/bin/env bash
# `make demo`: builds the demo service (tools/demo/service.cc) with seer-c++,
# records one run, analyses it and prints the report; then checks that the report
# shows the three bugs with their source lines, and fails loudly if not.
# Environment: BUILD (default build), SEER_DEMO_SYNC (ebpf or inproc; default:
# ebpf, i.e. real uprobes, when this user may attach them, else inproc).
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
BUILD=${BUILD:-build}
SYNC=${SEER_DEMO_SYNC:-}
SRC=tools/demo/service.cc
OUT=$BUILD/demo
SEER=$BUILD/cli/seer
CXX=$BUILD/tools/seer-c++

fail() {
  echo "demo: FAILED: $*" >&2
  exit 1
}

[[ -x $SEER ]] || fail "$SEER is missing: run 'make build' first"
[[ -x $CXX ]] || fail "$CXX is missing: run 'make build' first"
mkdir -p "$OUT" || fail "cannot create $OUT"

# Real probes need root or CAP_BPF (39) + CAP_PERFMON (38) in the effective set.
may_attach_probes() {
  [[ $(id -u) == 0 ]] && return 0
  local eff
  eff=$(awk '/^CapEff:/ { print $2 }' /proc/self/status 2>/dev/null) || return 1
  [[ -n $eff ]] && (( (0x$eff >> 38 & 1) && (0x$eff >> 39 & 1) ))
}
if [[ -z $SYNC ]]; then
  if may_attach_probes; then
    SYNC=ebpf
  else
    SYNC=inproc
    echo "demo: not root and no CAP_BPF+CAP_PERFMON: recording with the runtime's own sync events (--sync=inproc) instead of uprobes"
  fi
fi

echo "demo: compiling $SRC with seer-c++"
"$CXX" -O1 "$SRC" -o "$OUT/service" -pthread || fail "seer-c++ could not build $SRC"
echo "demo: recording one run (seer record --sync=$SYNC)"
"$SEER" record --sync="$SYNC" -o "$OUT/demo.seer" -- "$OUT/service" || fail "seer record failed"
"$SEER" analyze "$OUT/demo.seer" -o "$OUT/report.txt" || fail "seer analyze failed"
"$SEER" analyze "$OUT/demo.seer" --format json -o "$OUT/report.json" || fail "seer analyze --format json failed"
echo
cat "$OUT/report.txt"
echo

# The report must name the lines the source marks.
line_of() { grep -n "// $1\$" "$SRC" | head -1 | cut -d: -f1; }
has() { grep -Eq "service\.cc:$1([: ]|$)" <<<"$2"; }
RACE_W=$(line_of DEMO-RACE-WRITE)
RACE_R=$(line_of DEMO-RACE-READ)
LOCK_1=$(line_of DEMO-DEADLOCK-FIRST)
LOCK_2=$(line_of DEMO-DEADLOCK-SECOND)
ATOM_R=$(line_of DEMO-ATOMICITY-READ)
ATOM_W=$(line_of DEMO-ATOMICITY-WRITE)
ATOM_X=$(line_of DEMO-ATOMICITY-REMOTE)
report=$(cat "$OUT/report.txt")
# One text block per race entry, deadlock section, atomicity section.
race_ok=0
while IFS= read -r -d $'\x1e' entry; do
  if has "$RACE_W" "$entry" && has "$RACE_R" "$entry"; then race_ok=1; fi
done < <(awk 'BEGIN { RS = ""; ORS = "\x1e" } /^WARNING: data race/ { print }' "$OUT/report.txt")
deadlocks=$(sed -n '/^deadlocks:/,/^atomicity violations:/p' <<<"$report")
atomicity=$(sed -n '/^atomicity violations:/,$p' <<<"$report")

status=0
check() {
  if [[ $2 == 1 ]]; then echo "demo: ok: $1"; else echo "demo: MISSING: $1" >&2; status=1; fi
}
check "data race between service.cc:$RACE_W and service.cc:$RACE_R" $race_ok
check "lock-order inversion at service.cc:$LOCK_1 and service.cc:$LOCK_2" \
  $( (has "$LOCK_1" "$deadlocks" && has "$LOCK_2" "$deadlocks") && echo 1 || echo 0)
check "lost update: service.cc:$ATOM_R, then service.cc:$ATOM_X, then service.cc:$ATOM_W" \
  $( (has "$ATOM_R" "$atomicity" && has "$ATOM_X" "$atomicity" && has "$ATOM_W" "$atomicity") && echo 1 || echo 0)
if [[ $status != 0 ]]; then
  fail "the report above misses a bug (trace, reports: $OUT)"
fi
echo "demo: all three bugs predicted from one run in which none fired (report: $OUT/report.txt, $OUT/report.json)"
