#!/usr/bin/env bash
# Installs the consumers the report-format tests run, into the build folder
# (never the repository): Microsoft's SARIF validator and playwright-core (which
# drives the system's Chromium). A missing tool fails this fixture, and with it
# every test that needs it: CI must not pass by skipping the validators.
set -euo pipefail
prefix=${1:?usage: install_tools.sh NPM_PREFIX}

fail() { echo "report tools: FAIL: $*" >&2; exit 1; }
command -v node >/dev/null || fail "node is not installed (tools/install-deps.sh installs nodejs)"
command -v npm >/dev/null || fail "npm is not installed (it comes with nodejs; on Debian's own nodejs: apt-get install npm)"
chromium=${SEER_CHROMIUM:-/usr/bin/chromium}
[ -x "$chromium" ] || fail "$chromium not found (tools/install-deps.sh installs chromium; or set SEER_CHROMIUM)"

# Pinned: a validator that changes under us would change what the tests mean.
packages=(@microsoft/sarif-multitool@5.7.0 playwright-core@1.65.1)
if [ -x "$prefix/node_modules/.bin/sarif-multitool" ] && [ -f "$prefix/node_modules/playwright-core/package.json" ]; then
  echo "report tools: present in $prefix"
  exit 0
fi
mkdir -p "$prefix"
npm install --prefix "$prefix" --no-audit --no-fund --loglevel=error "${packages[@]}" ||
  fail "npm install ${packages[*]} into $prefix failed (is the npm registry reachable?)"
[ -x "$prefix/node_modules/.bin/sarif-multitool" ] || fail "sarif-multitool missing after npm install"
echo "report tools: installed ${packages[*]} in $prefix"
