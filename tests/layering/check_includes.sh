#!/usr/bin/env bash
# Checks that every #include "..." in the source tree follows the layer order of
# docs/ARCHITECTURE.md: a folder includes only itself and the folders it is
# allowed to depend on. Prints each violation as file:line and exits 1 if any.
# Usage: check_includes.sh [SOURCE_ROOT]
set -euo pipefail
root=${1:-$(cd "$(dirname "$0")/../.." && pwd)}
cd "$root"

# Folder -> the top-level include prefixes it may use ("seer" is include/seer).
# The runtime lives inside the target process: of the contracts it may use
# only the event model and the ring layout, which need nothing linked.
declare -A allowed=(
  [include]="seer"
  [runtime]="runtime seer/event.h seer/ring_layout.h seer/ring_record.h"
  [store]="seer store"
  [interop]="seer store interop"
  [gen]="seer store gen"
  [predictor]="seer store predictor"
  [bpf]="bpf"
  [recorder]="seer store bpf recorder"
  # The service records and runs the analyses over its windows: above the
  # recorder and the predictor, below the cli.
  [daemon]="seer store bpf recorder predictor daemon"
  [cli]="seer store interop gen predictor recorder daemon cli"
  [tools]=""
)

violations=0
checked=0
for folder in "${!allowed[@]}"; do
  [ -d "$folder" ] || { echo "check_includes: no folder $folder (update this script with the layout)" >&2; exit 2; }
  while IFS= read -r -d '' file; do
    while IFS=: read -r line text; do
      inc=$(sed -E 's/^[[:space:]]*#[[:space:]]*include[[:space:]]+"([^"]+)".*/\1/' <<<"$text")
      checked=$((checked + 1))
      # A name without a folder is the file's own neighbour or a generated
      # header (vmlinux.h, a BPF skeleton): not a cross-folder dependency.
      [[ "$inc" == */* ]] || continue
      ok=0
      for prefix in ${allowed[$folder]}; do
        if [[ "$prefix" == *.h ]]; then [[ "$inc" == "$prefix" ]] && ok=1
        else [[ "$inc" == "$prefix"/* ]] && ok=1
        fi
        [ $ok -eq 1 ] && break
      done
      if [ $ok -eq 0 ]; then
        echo "$file:$line: includes \"$inc\"; $folder/ may include only: ${allowed[$folder]:-no seer header}"
        violations=$((violations + 1))
      fi
    done < <(grep -nE '^[[:space:]]*#[[:space:]]*include[[:space:]]+"' "$file" || true)
  done < <(find "$folder" -type f \( -name '*.c' -o -name '*.cc' -o -name '*.h' \) -print0)
done

echo "check_includes: $checked includes checked, $violations out of layer order"
[ "$violations" -eq 0 ]
