#!/usr/bin/env bash
# The include checker must fail on a tree that breaks the layer order: a fake
# tree with one allowed and two forbidden includes.
set -euo pipefail
checker="$(cd "$(dirname "$0")" && pwd)/check_includes.sh"
tree=$(mktemp -d)
trap 'rm -rf "$tree"' EXIT
for d in include runtime store interop gen predictor bpf daemon cli tools; do mkdir -p "$tree/$d"; done
printf '#include "store/tables.h"\n#include "seer/trace.h"\n' > "$tree/daemon/ok.cc"
printf '#include "cli/command.h"\n' > "$tree/daemon/bad.cc"
printf '#include "seer/trace.h"\n' > "$tree/runtime/bad.h"
if out=$(bash "$checker" "$tree" 2>&1); then
  echo "FAIL: the checker passed a tree with forbidden includes:"; echo "$out"; exit 1
fi
grep -q 'daemon/bad.cc:1: includes "cli/command.h"' <<<"$out" || { echo "FAIL: missed daemon -> cli"; echo "$out"; exit 1; }
grep -q 'runtime/bad.h:1: includes "seer/trace.h"' <<<"$out" || { echo "FAIL: missed runtime -> seer/trace.h"; echo "$out"; exit 1; }
grep -q '4 includes checked, 2 out of layer order' <<<"$out" || { echo "FAIL: wrong counts"; echo "$out"; exit 1; }
echo "check_includes_selftest: the checker finds both forbidden includes and passes the allowed ones"
