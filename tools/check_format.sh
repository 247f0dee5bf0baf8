#!/usr/bin/env bash
# Fails when a C or C++ file of the tree is not laid out as .clang-format says,
# and names the files (`make format` fixes them). Usage: check_format.sh [SOURCE_ROOT]
set -euo pipefail
root=${1:-$(cd "$(dirname "$0")/.." && pwd)}
cd "$root"
command -v clang-format >/dev/null || { echo "check_format: clang-format is not installed (tools/install-deps.sh)" >&2; exit 2; }
mapfile -t files < <(git ls-files -- '*.c' '*.cc' '*.h' ':!:tests/cli/data/*')
# One clang-format for every file (a process each took a minute): its
# warnings name each file that is not formatted.
mapfile -t bad < <(clang-format --style=file --dry-run "${files[@]}" 2>&1 | sed -nE 's/^([^:]+):[0-9]+:[0-9]+: (warning|error):.*/\1/p' | sort -u)
for f in "${bad[@]}"; do echo "check_format: $f is not formatted (clang-format -i $f)"; done
echo "check_format: ${#files[@]} files, ${#bad[@]} not formatted"
[ ${#bad[@]} -eq 0 ]
