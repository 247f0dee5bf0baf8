#!/usr/bin/env bash
# Instructions of the runtime's hot hooks as the compiler laid them out in an
# instrumented executable, counted by objdump from the entry up to and including
# the first `ret` (the fast path; slow paths are tail calls past it). The figure
# docs/runtime.md quotes; compare it before and after a change to runtime/.
# Usage: bench/hook_instructions.sh [BUILD_DIR]   (default: build)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
exe=$build/bench/runtime/workload_seer
[ -x "$exe" ] || { echo "hook_instructions: $exe not built (ninja -C $build workload_seer)" >&2; exit 2; }
dis=$(mktemp)
trap 'rm -f "$dis"' EXIT
objdump -d --no-show-raw-insn "$exe" > "$dis"
printf '%-24s %s\n' hook instructions_to_ret
for hook in __tsan_read1 __tsan_read4 __tsan_read8 __tsan_write4 __tsan_write8 __tsan_func_entry __tsan_func_exit \
            pthread_mutex_lock pthread_mutex_unlock; do
  n=$(awk -v f="<$hook>:" '$0 ~ f {p = 1; next} p && /^$/ {exit} p {print; if ($0 ~ /\tret/) exit}' "$dis" | wc -l)
  printf '%-24s %s\n' "$hook" "$n"
done
