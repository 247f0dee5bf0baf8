#!/usr/bin/env bash
# The namespace checker must fail on a tree that breaks the rule: a fake tree
# with two right namespaces, a contract file, and two wrong ones.
set -euo pipefail
checker="$(cd "$(dirname "$0")" && pwd)/check_namespaces.sh"
tree=$(mktemp -d)
trap 'rm -rf "$tree"' EXIT
for d in include runtime store interop gen predictor recorder daemon cli; do mkdir -p "$tree/$d"; done
mkdir -p "$tree/predictor/seqcheck"
printf 'namespace seer::predictor::seqcheck {\n}\n' > "$tree/predictor/seqcheck/ok.cc"
printf 'namespace seer::store {\n}\nnamespace seer {\n}\n' > "$tree/store/trace_reader.cc"
printf 'namespace seer {\n}\n' > "$tree/predictor/bad.cc"
printf '#include <x>\n\nnamespace seer::recorder {\n}\n' > "$tree/daemon/bad.h"
if out=$(bash "$checker" "$tree" 2>&1); then
  echo "FAIL: the checker passed a tree with misnamed namespaces:"; echo "$out"; exit 1
fi
grep -q 'predictor/bad.cc:1: opens namespace seer; predictor/ is namespace seer::predictor' <<<"$out" || { echo "FAIL: missed predictor in seer"; echo "$out"; exit 1; }
grep -q 'daemon/bad.h:3: opens namespace seer::recorder' <<<"$out" || { echo "FAIL: missed daemon in seer::recorder"; echo "$out"; exit 1; }
grep -q '5 namespaces checked, 2 not named after their folder' <<<"$out" || { echo "FAIL: wrong counts"; echo "$out"; exit 1; }
echo "check_namespaces_selftest: the checker finds the two misnamed namespaces and passes the others"
