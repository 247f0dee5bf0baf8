# Sourced by the benchmarks that build a program from Debian's source packages
# (watch/memcached.sh, tsan_suite.sh). Needs root (apt-get) and the archive the
# machine's apt already uses; touches no file of the machine's apt
# configuration: the source lists go to a directory of the caller's.

# debian_source DIR PACKAGE [APT-GET SOURCE OPTIONS...]
#   Runs `apt-get source PACKAGE` in DIR/src with a private source list and
#   package lists under DIR/apt (deb-src lines of the machine's Debian archive
#   and release). Options such as --download-only pass through.
debian_source() {
  local dir=$1 package=$2
  shift 2
  mkdir -p "$dir/apt/lists/partial" "$dir/src"
  local uri suite
  uri=$(sed -n 's/^URIs: *\(http[^ ]*debian\)\/* *$/\1/p' /etc/apt/sources.list.d/debian.sources 2>/dev/null | head -1)
  uri=${uri:-http://deb.debian.org/debian}
  suite=$(. /etc/os-release && echo "$VERSION_CODENAME")
  echo "deb-src $uri $suite main" >"$dir/apt/sources.list"
  local apt_opts=(-o "Dir::Etc::SourceList=$dir/apt/sources.list" -o Dir::Etc::SourceParts=/dev/null
                  -o "Dir::State::Lists=$dir/apt/lists")
  apt-get -qq "${apt_opts[@]}" update
  (cd "$dir/src" && apt-get -qq "${apt_opts[@]}" source "$@" "$package" >/dev/null 2>&1)
}
