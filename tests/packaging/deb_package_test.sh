#!/usr/bin/env bash
# The Debian package on this machine: built from the build folder's binaries by
# packaging/make_deb.sh (the same as `make package`: CPack, then lintian, which
# must report no error), installed with dpkg -i, then checked --
#   Depends names the shared libraries and adduser; the configuration is a
#   conffile; the unit is installed and not enabled (systemctl is-enabled says
#   disabled, or, without a running systemd, no .wants link names it); the
#   `seer` system user exists with home /var/lib/seer and no login shell;
#   /usr/bin/seer-cc builds a racy program that /usr/bin/seer records and
#   analyses, with PATH=/usr/bin:/bin and nothing of the build tree --
# and purged: no file of the package left, no /etc/seer, no /var/lib/seer, no
# `seer` user or group (packaging/debian/postrm). The package is purged on every
# exit path. It refuses to run (and fails) when seer is already installed or a
# `seer` user exists: both are the machine's, not this test's, to remove.
#
# usage: deb_package_test.sh BUILD_DIR SOURCE_DIR(tests/packaging) WORK_DIR
set -euo pipefail
if [ $# -ne 3 ]; then
  echo "usage: $0 BUILD_DIR SOURCE_DIR WORK_DIR" >&2
  exit 2
fi
build=$(realpath "$1") source_dir=$(realpath "$2") work=$3
# shellcheck source=installed_seer.sh
. "$source_dir/installed_seer.sh"
start=$SECONDS

[ "$(id -u)" = 0 ] || fail "NOT RUN: dpkg -i needs root (CI runs as root)"
if dpkg-query -W -f='${Status}' seer 2>/dev/null | grep -q 'installed'; then
  fail "NOT RUN: a seer package is installed on this machine already (dpkg --purge seer first)"
fi
if getent passwd seer >/dev/null || getent group seer >/dev/null; then
  fail "NOT RUN: a 'seer' user or group exists already; the package's purge would remove it"
fi

rm -rf "$work" && mkdir -p "$work"
work=$(realpath "$work")
installed=0
cleanup() {
  if [ $installed = 1 ] && dpkg-query -W seer >/dev/null 2>&1; then
    echo "cleanup: dpkg --purge seer" >&2
    dpkg --purge seer >/dev/null 2>&1 || echo "cleanup: dpkg --purge seer failed" >&2
  fi
  rm -rf "$work/_CPack_Packages" "$work/run"
}
trap cleanup EXIT

t=$SECONDS
deb=$(bash "$(dirname "$source_dir")/../packaging/make_deb.sh" "$build" "$work" | tee "$work/make_deb.log" | tail -1)
echo "ok: built and linted $(basename "$deb") in $((SECONDS - t)) s ($(du -k "$deb" | cut -f1) KiB)"
sed -n '/lintian/,$p' "$work/make_deb.log" | sed '$d'

depends=$(dpkg-deb -f "$deb" Depends)
for dep in libc6 libstdc++6 libelf1 libbpf1 liblmdb0 libzstd1 adduser; do
  [[ "$depends" == *"$dep"* ]] || fail "Depends lacks $dep: $depends"
done
echo "ok: Depends: $depends"

t=$SECONDS
dpkg -i "$deb" >"$work/dpkg-install.log" 2>&1 || { installed=1; cat "$work/dpkg-install.log"; fail "dpkg -i failed"; }
installed=1
dpkg-query -L seer | sort >"$work/files.txt"
echo "ok: dpkg -i in $((SECONDS - t)) s, $(wc -l <"$work/files.txt") paths"

for f in /usr/bin/seer /usr/bin/seer-cc /usr/lib/seer/libseer_rt.so /usr/lib/seer/libseer_rt.a \
         /usr/lib/systemd/system/seer-daemon.service /etc/seer/seer.toml /usr/share/man/man1/seer.1.gz \
         /usr/share/doc/seer/copyright /usr/share/doc/seer/changelog.gz; do
  [ -f "$f" ] || fail "$f is not installed"
done
dpkg-query -W -f='${Conffiles}\n' seer | grep -q '/etc/seer/seer.toml' || fail "/etc/seer/seer.toml is not a conffile"
grep -qx 'ExecStart=/usr/bin/seer daemon --config /etc/seer/seer.toml' /usr/lib/systemd/system/seer-daemon.service \
  || fail "the unit's ExecStart does not name /usr/bin/seer and /etc/seer/seer.toml"

if [ -d /run/systemd/system ]; then
  state=$(systemctl is-enabled seer-daemon.service 2>&1 || true)
  [ "$state" = disabled ] || fail "systemctl is-enabled seer-daemon.service says '$state', expected disabled"
  echo "ok: systemctl is-enabled seer-daemon.service: disabled"
else
  links=$(find /etc/systemd/system /usr/lib/systemd/system /lib/systemd/system -name seer-daemon.service -type l 2>/dev/null || true)
  [ -z "$links" ] || fail "the unit is linked (enabled): $links"
  echo "ok: systemd is not running here (no /run/systemd/system): the unit is installed and no .wants link names it"
fi

entry=$(getent passwd seer) || fail "no 'seer' user after dpkg -i"
IFS=: read -r _ _ uid _ _ home shell <<<"$entry"
[ "$uid" -lt 1000 ] || fail "the seer user is not a system user (uid $uid)"
[ "$home" = /var/lib/seer ] || fail "the seer user's home is $home, expected /var/lib/seer"
[ "$shell" = /usr/sbin/nologin ] || fail "the seer user's shell is $shell, expected /usr/sbin/nologin"
getent group seer >/dev/null || fail "no 'seer' group after dpkg -i"
echo "ok: system user seer (uid $uid, home $home, shell $shell)"

check_installed_seer /usr/bin /usr/lib/seer "$source_dir" "$work/run"

# What the daemon leaves, so that the purge has something to remove.
mkdir -p /var/lib/seer/windows && chown -R seer:seer /var/lib/seer

t=$SECONDS
dpkg --purge seer >"$work/dpkg-purge.log" 2>&1 || { cat "$work/dpkg-purge.log"; fail "dpkg --purge seer failed"; }
installed=0
echo "ok: dpkg --purge in $((SECONDS - t)) s"
! dpkg-query -W seer >/dev/null 2>&1 || fail "dpkg still knows seer after the purge"
left=()
while IFS= read -r path; do
  [ "$path" = /. ] && continue
  if [ -e "$path" ] && [ ! -d "$path" ]; then left+=("$path"); fi
  # A folder of the package's own (not one other packages share) must be gone.
  if [ -d "$path" ] && [[ "$path" == */seer ]]; then left+=("$path/"); fi
done <"$work/files.txt"
[ ${#left[@]} = 0 ] || fail "left after the purge: ${left[*]}"
for path in /etc/seer /var/lib/seer /usr/lib/seer /usr/share/doc/seer /usr/share/seer; do
  [ ! -e "$path" ] || fail "$path is left after the purge"
done
! getent passwd seer >/dev/null || fail "the seer user is left after the purge"
! getent group seer >/dev/null || fail "the seer group is left after the purge"
echo "ok: purged: no file, folder, user or group of the package left"
echo "PASS: deb_package_test in $((SECONDS - start)) s"
