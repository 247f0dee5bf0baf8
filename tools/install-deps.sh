#!/usr/bin/env bash
# Installs the Debian packages seer needs to build and test. Idempotent: packages
# already present are not fetched again, and apt-get runs only when one is missing.
set -euo pipefail

packages=(
  build-essential cmake ninja-build pkg-config clang llvm
  libbpf-dev bpftool libelf-dev libdw-dev zlib1g-dev
  liblmdb-dev lmdb-utils libzstd-dev libzydis-dev
  libcli11-dev nlohmann-json3-dev libfmt-dev
  libgtest-dev libgmock-dev libbenchmark-dev
  libclang-rt-14-dev llvm-14-dev
  nodejs chromium chromium-driver
  libtomlplusplus-dev libcpp-httplib-dev prometheus curl
  clang-format python3 procps
  help2man dpkg-dev lintian
  slurm-wlm munge
)
# libzydis-dev: the x86-64 decoder of the runtime's access sampler
# (runtime/access_sampler.h).
# llvm-14-dev: the headers and CMake package seer-clang's pass plugin
# (tools/clang_plugin) is built against, the LLVM of Debian's clang 14.
# nodejs, chromium: the report-format tests run Microsoft's SARIF validator and
# open the HTML report and a timeline in headless Chromium (tests/predictor/report/formats;
# npm installs the validator and playwright-core into the build folder).
# libtomlplusplus-dev, libcpp-httplib-dev: `seer daemon`'s config file and HTTP
# endpoints; prometheus (promtool and the server), curl: the daemon tests scrape
# its /metrics with them (tests/daemon).
# python3, procps: test scripts read `seer info --json` with python3
# (tests/racefuzzer, tests/runtime/ring_reuse_test.sh, the daemon tests) and
# find the daemon's children with pgrep/pkill (tests/daemon); a minimal
# Debian image has neither.
# clang-format, python3: `make test` checks the layout of the code
# (tools/check_format.sh) and that no block of it is written twice
# (tools/check_duplicates.py).
# slurm-wlm, munge: `seer analyze --shard` runs as a Slurm job array
# (tools/slurm/); its test starts a one-node cluster (slurmctld, slurmd, munged
# with a key of its own) on localhost (tests/cli/slurm/).
# help2man: the manual pages, made from --help at build time (packaging/);
# dpkg-dev (dpkg-shlibdeps: the package's Depends) and lintian:
# `make package` builds the Debian package and fails on lintian errors, and
# tests/packaging installs it.

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#packages[@]} packages present"
  exit 0
fi

if [ "$(id -u)" -ne 0 ]; then
  echo "install-deps: missing packages: ${missing[*]}" >&2
  echo "install-deps: run as root (or: sudo $0) to install them with apt-get" >&2
  exit 1
fi

echo "install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}"
