#!/usr/bin/env bash
# `seer analyze --format sarif` checked by Microsoft's SARIF validator
# (sarif-multitool validate): no error-level result. A deliberately broken log is
# validated first and must get errors, so that a validator that checks nothing
# cannot pass this test.
# usage: sarif_validate.sh SEER NPM_PREFIX TRACE SOURCE_ROOT OUT_DIR
set -euo pipefail
seer=$1 prefix=$2 trace=$3 root=$4 out=$5
validator=$prefix/node_modules/.bin/sarif-multitool
fail() { echo "sarif: FAIL: $*" >&2; exit 1; }
[ -x "$validator" ] || fail "$validator missing (the report.formats.install_tools fixture installs it)"
mkdir -p "$out"

# Error-level results of the validator's log, one per line.
errors() {
  node -e '
    const log = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
    if (!log.runs || !log.runs.length) { console.log("validator log has no run"); process.exit(0); }
    for (const r of log.runs[0].results || [])
      if ((r.level || "warning") === "error") console.log(r.ruleId + ": " + r.message.text);
  ' "$1"
}
validate() {  # SARIF LOG
  rm -f "$2"
  "$validator" validate "$1" -o "$2" --log ForceOverwrite --quiet >/dev/null 2>&1 || true
  [ -f "$2" ] || fail "the validator wrote no log for $1"
}

broken=$out/broken.sarif
echo '{"version": "2.1.0", "runs": [{"tool": {"driver": {}}, "results": [{"message": {}}]}]}' > "$broken"
validate "$broken" "$out/broken.validation.sarif"
[ -n "$(errors "$out/broken.validation.sarif")" ] || fail "the validator found no error in a broken log"

sarif=$out/report.sarif
"$seer" analyze --format sarif --source-root "$root" -o "$sarif" "$trace"
validate "$sarif" "$out/report.validation.sarif"
found=$(errors "$out/report.validation.sarif")
[ -z "$found" ] || fail "$(printf 'the validator reports errors in %s:\n%s' "$sarif" "$found")"
results=$(node -e 'console.log(JSON.parse(require("fs").readFileSync(process.argv[1])).runs[0].results.length)' "$sarif")
[ "$results" -gt 0 ] || fail "$sarif has no result (the demo has a race, a deadlock and a lost update)"
warnings=$(node -e '
  const log = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
  console.log((log.runs[0].results || []).filter(r => r.level === "warning").length)' "$out/report.validation.sarif")
echo "sarif: $sarif ($results results) validated by sarif-multitool: 0 errors, $warnings warnings"
