#!/usr/bin/env bash
# ThreadSanitizer's own test programs (LLVM 14's compiler-rt/test/tsan) under
# seer, against their FileCheck expectations (tsan_suite.py says how each is
# judged). The tests come from Debian's llvm-toolchain-14 source package,
# fetched once (a 130 MB download; only the tests are unpacked).
#
#   bench/tsan_suite.sh [BUILD_DIR] [-- tsan_suite.py options, e.g. --only signal_ --jobs 2]
#   bench/tsan_suite.sh build -- --tool both     ThreadSanitizer's score beside seer's (clang-14)
#     TSAN_SUITE_DIR=/var/tmp/seer-tsan-suite   where the source is kept
#
# Run as root on the first use (apt-get), and as root for the recordings.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=${1:-$here/../build}
[ $# -gt 0 ] && shift
[ "${1:-}" = -- ] && shift
dir=${TSAN_SUITE_DIR:-/var/tmp/seer-tsan-suite}
# shellcheck source=bench/debian_source.sh
source "$here/debian_source.sh"

tests_of() { find "$dir/src" -maxdepth 6 -type f -path '*/compiler-rt/test/tsan/test.h' 2>/dev/null | head -1; }
test_h=$(tests_of)
if [ -z "$test_h" ]; then
  [ "$(id -u)" = 0 ] || { echo "tsan_suite: the tests are fetched with apt-get: run as root" >&2; exit 1; }
  if ! ls "$dir"/src/llvm-toolchain-14_*.orig.tar.xz >/dev/null 2>&1; then
    echo "tsan_suite: fetching llvm-toolchain-14's source package into $dir (once)" >&2
    debian_source "$dir" llvm-toolchain-14 --download-only
  fi
  orig=$(ls "$dir"/src/llvm-toolchain-14_*.orig.tar.xz | head -1)
  tar -C "$dir/src" -xJf "$orig" --wildcards '*/compiler-rt/test/tsan/*' \
    '*/compiler-rt/test/sanitizer_common/print_address.h'
  test_h=$(tests_of)
  [ -n "$test_h" ] || { echo "tsan_suite: $orig holds no compiler-rt/test/tsan" >&2; exit 1; }
fi
# sunrpc.cpp needs Sun RPC's headers, which glibc no longer has: libtirpc-dev's.
if [ ! -f /usr/include/tirpc/rpc/xdr.h ] && [ "$(id -u)" = 0 ]; then
  apt-get install -y -qq libtirpc-dev >/dev/null || echo "tsan_suite: no libtirpc-dev: sunrpc.cpp is not run" >&2
fi
exec python3 "$here/tsan_suite.py" "$(dirname "$(dirname "$(dirname "$test_h")")")" "$build" "$@"
