#!/usr/bin/env bash
# Checks the rule "one namespace per folder, named after it" (CONTRIBUTING.md):
# every `namespace seer...` a source file opens is its top folder's namespace or
# one nested in it. Prints each violation as file:line and exits 1 if any.
# Usage: check_namespaces.sh [SOURCE_ROOT]
set -euo pipefail
root=${1:-$(cd "$(dirname "$0")/../.." && pwd)}
cd "$root"

# Folder -> its namespace. The contracts (include/seer) are `seer` itself.
declare -A namespace_of=(
  [include]="seer"
  [runtime]="seer::rt"
  [store]="seer::store"
  [interop]="seer::interop"
  [gen]="seer::gen"
  [predictor]="seer::predictor"
  [recorder]="seer::recorder"
  [daemon]="seer::daemon"
  [cli]="seer::cli"
)
# The store implements the contracts of include/seer (TraceReader::Open,
# TraceWriter::Create, TraceCounters, the event kind names): those definitions
# belong to namespace seer, in these files only.
contract_files=" store/event.cc store/trace_reader.cc store/trace_writer.cc store/tables.cc "

violations=0
checked=0
for folder in "${!namespace_of[@]}"; do
  [ -d "$folder" ] || { echo "check_namespaces: no folder $folder (update this script with the layout)" >&2; exit 2; }
  want=${namespace_of[$folder]}
  while IFS= read -r -d '' file; do
    while IFS=: read -r line text; do
      ns=$(sed -E 's/^namespace ([A-Za-z0-9_:]+).*/\1/' <<<"$text")
      checked=$((checked + 1))
      [[ "$ns" == "$want" || "$ns" == "$want"::* ]] && continue
      [[ "$ns" == seer && "$contract_files" == *" $file "* ]] && continue
      echo "$file:$line: opens namespace $ns; $folder/ is namespace $want"
      violations=$((violations + 1))
    done < <(grep -nE '^namespace seer(::[A-Za-z0-9_:]+)? \{' "$file" || true)
  done < <(find "$folder" -type f \( -name '*.cc' -o -name '*.h' \) -print0)
done

echo "check_namespaces: $checked namespaces checked, $violations not named after their folder"
[ "$violations" -eq 0 ]
