#!/usr/bin/env bash
# The include checker must fail on a tree that breaks the layer order: a fake
# tree with one allowed and two forbidden includes.
set -euo pipefail
checker="$(cd "$(dirname "$0")" && pwd)/check_includes.sh"
tree=$(mktemp -d)
trap 'rm -rf "$tree"' EXIT
for d in include runtime store interop gen predictor bpf recorder daemon cli tools; do mkdir -p "$tree/$d"; done
printf '#include "store/tables.h"\n#include "seer/trace.h"\n' > "$tree/recorder/ok.cc"
printf '#include "cli/command.h"\n' > "$tree/recorder/bad.cc"
printf '#include "seer/trace.h"\n' > "$tree/runtime/bad.h"
# The service (daemon/) stands above the predictor; the recorder below it.
printf '#include "predictor/analyze.h"\n' > "$tree/daemon/ok.cc"
printf '#include "predictor/analyze.h"\n' > "$tree/recorder/bad_predictor.cc"
if out=$(bash "$checker" "$tree" 2>&1); then
  echo "FAIL: the checker passed a tree with forbidden includes:"; echo "$out"; exit 1
fi
grep -q 'recorder/bad.cc:1: includes "cli/command.h"' <<<"$out" || { echo "FAIL: missed recorder -> cli"; echo "$out"; exit 1; }
grep -q 'runtime/bad.h:1: includes "seer/trace.h"' <<<"$out" || { echo "FAIL: missed runtime -> seer/trace.h"; echo "$out"; exit 1; }
grep -q 'recorder/bad_predictor.cc:1: includes "predictor/analyze.h"' <<<"$out" || { echo "FAIL: missed recorder -> predictor"; echo "$out"; exit 1; }
grep -q 'daemon/ok.cc' <<<"$out" && { echo "FAIL: daemon -> predictor refused"; echo "$out"; exit 1; }
grep -q '6 includes checked, 3 out of layer order' <<<"$out" || { echo "FAIL: wrong counts"; echo "$out"; exit 1; }
echo "check_includes_selftest: the checker finds the three forbidden includes and passes the allowed ones"
