#!/usr/bin/env bash
# Builds seer's Debian package from a build folder whose installed files are
# built (target seer_installed_files) and checks it with lintian, failing on any
# error (warnings are printed, not fatal). `make package` and the package test
# (tests/packaging/deb_package_test.sh) both run it. The last line of its output
# is the path of the .deb.
#
# usage: make_deb.sh BUILD_DIR OUTPUT_DIR
set -euo pipefail
if [ $# -ne 2 ]; then
  echo "usage: $0 BUILD_DIR OUTPUT_DIR" >&2
  exit 2
fi
build=$(realpath "$1")
mkdir -p "$2"
out=$(realpath "$2")
for tool in cpack dpkg-shlibdeps lintian; do
  command -v "$tool" >/dev/null || { echo "make_deb.sh: $tool not found (tools/install-deps.sh installs it)" >&2; exit 2; }
done
if [ ! -f "$build/CPackConfig.cmake" ]; then
  echo "make_deb.sh: $build/CPackConfig.cmake not found: configure the build first" >&2
  exit 2
fi

rm -rf "$out/_CPack_Packages"
rm -f "$out"/seer_*.deb
if ! cpack -G DEB --config "$build/CPackConfig.cmake" -B "$out" >"$out/cpack.log" 2>&1; then
  cat "$out/cpack.log" >&2
  echo "make_deb.sh: cpack failed (log: $out/cpack.log)" >&2
  exit 1
fi
debs=("$out"/seer_*.deb)
if [ ${#debs[@]} -ne 1 ] || [ ! -f "${debs[0]}" ]; then
  echo "make_deb.sh: expected one seer_*.deb in $out, found: ${debs[*]}" >&2
  exit 1
fi
deb=${debs[0]}

echo "make_deb.sh: lintian $deb"
if ! lintian --fail-on error --display-level '>=warning' "$deb"; then
  echo "make_deb.sh: lintian reports errors on $deb" >&2
  exit 1
fi
echo "$deb"
