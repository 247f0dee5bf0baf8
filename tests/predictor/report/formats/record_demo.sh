#!/usr/bin/env bash
# Records the demo service (tools/demo/service.cc: a race, a deadlock and a lost
# update) once for the report-format tests, and writes its JSON report.
set -euo pipefail
seer=${1:?usage: record_demo.sh SEER SEER_CXX SOURCE OUT_DIR}
cxx=$2 source=$3 out=$4
rm -rf "$out" && mkdir -p "$out"
"$cxx" -O1 "$source" -o "$out/service" -pthread
"$seer" record -q --sync=inproc -o "$out/demo.seer" -- "$out/service" >/dev/null
"$seer" analyze --format json -o "$out/demo.json" "$out/demo.seer"
echo "recorded $out/demo.seer"
