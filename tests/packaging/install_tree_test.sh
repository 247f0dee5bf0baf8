#!/usr/bin/env bash
# `make install` into a DESTDIR (the command the Makefile's install target runs:
# cmake --install BUILD --prefix /usr/local, DESTDIR set): the tree it writes
# (files, modes, gzipped manual pages, the unit with this prefix's paths, no
# build path in the installed scripts), then the installed seer run from that
# tree as a user runs it -- seer-cc, seer-c++ and seer-clang++ build racy
# programs, seer records and analyses them, and a preloaded recording maps the
# installed runtime -- with only DESTDIR/usr/local/bin on PATH besides the
# system's, and no LD_LIBRARY_PATH.
#
# usage: install_tree_test.sh BUILD_DIR SOURCE_DIR(tests/packaging) WORK_DIR
set -euo pipefail
if [ $# -ne 3 ]; then
  echo "usage: $0 BUILD_DIR SOURCE_DIR WORK_DIR" >&2
  exit 2
fi
build=$(realpath "$1") source_dir=$(realpath "$2") work=$3
# shellcheck source=installed_seer.sh
. "$source_dir/installed_seer.sh"
start=$SECONDS

rm -rf "$work" && mkdir -p "$work"
work=$(realpath "$work")
trap 'rm -rf "$work/root"' EXIT
root=$work/root
prefix=/usr/local
DESTDIR=$root cmake --install "$build" --prefix "$prefix" >"$work/install.log" \
  || { cat "$work/install.log"; fail "cmake --install into DESTDIR=$root failed"; }
p=$root$prefix

# The tree.
expect_mode() {  # expect_mode MODE FILE
  [ -f "$2" ] || fail "$2 is not installed"
  [ "$(stat -c %a "$2")" = "$1" ] || fail "$2 has mode $(stat -c %a "$2"), expected $1"
}
for f in seer seer-cc seer-c++ seer-clang seer-clang++; do expect_mode 755 "$p/bin/$f"; done
for f in libseer_rt.so seer_clang_wide_access.so libseer_rt.a libseer_rt_cxx.a seer_rt.dynlist; do
  expect_mode 644 "$p/lib/seer/$f"
done
expect_mode 644 "$p/lib/systemd/system/seer-daemon.service"
expect_mode 644 "$p/etc/seer/seer.toml"
expect_mode 644 "$p/share/seer/grafana-dashboard.json"
expect_mode 755 "$p/share/seer/slurm/seer-slurm-analyze"
expect_mode 755 "$p/share/seer/slurm/seer-analyze.sbatch"
for f in README.md daemon.md ARCHITECTURE.md copyright changelog.gz; do expect_mode 644 "$p/share/doc/seer/$f"; done
for page in seer seer-record seer-analyze seer-daemon seer-cc seer-c++ seer-clang seer-clang++; do
  expect_mode 644 "$p/share/man/man1/$page.1.gz"
  gzip -t "$p/share/man/man1/$page.1.gz" || fail "$page.1.gz is not a gzip file"
done
zcat "$p/share/man/man1/seer-record.1.gz" | grep -qF -- '\-\-sync' \
  || fail "seer-record.1 does not document --sync (help2man of 'seer record --help')"
echo "ok: the tree under $prefix ($(find "$root" -type f | wc -l) files)"

# The unit names this prefix's binary and configuration, and nothing is left to fill in.
unit=$p/lib/systemd/system/seer-daemon.service
grep -qx "ExecStart=$prefix/bin/seer daemon --config $prefix/etc/seer/seer.toml" "$unit" \
  || { grep ExecStart "$unit"; fail "the unit's ExecStart does not name $prefix/bin/seer and $prefix/etc/seer/seer.toml"; }
if grep -n '@[A-Z_]*@' "$unit"; then fail "the unit has placeholders left"; fi
echo "ok: the unit runs $prefix/bin/seer daemon --config $prefix/etc/seer/seer.toml"

# No installed script or text file points into the build folder or the source tree.
if grep -rlF -e "$build" -e "$(dirname "$(dirname "$source_dir")")" "$p/bin/seer-"* "$p/lib/systemd" "$p/etc" "$p/lib/seer/seer_rt.dynlist"; then
  fail "the files above name the build folder or the source tree"
fi
echo "ok: no installed script names the build folder"

check_installed_seer "$p/bin" "$p/lib/seer" "$source_dir" "$work/run" cxx
echo "PASS: install_tree_test in $((SECONDS - start)) s"
