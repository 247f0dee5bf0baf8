# Sourced by the install tests: checks an installed seer the way a user runs it,
# with nothing of the build tree in the environment.
#
# check_installed_seer BIN_DIR LIB_DIR SOURCE_DIR WORK_DIR [cxx]
#   runs, with PATH=BIN_DIR:/usr/bin:/bin and no LD_LIBRARY_PATH, LD_PRELOAD or
#   SEER_* variable:
#   - seer --version;
#   - seer-cc on racy.c, seer record (inproc), seer analyze: the race on
#     `counter` reported at its source line (exit 1 with --fail-on-findings);
#   - seer record --sync=preload of cat /proc/self/maps: the runtime mapped is
#     LIB_DIR/libseer_rt.so, found by seer beside itself;
#   - with "cxx": the same race check with seer-c++ and with seer-clang++ (its
#     pass plugin found beside the wrapper) on racy.cc.
#   Fails (exit 1) with a message at the first check that does not hold.

fail() { echo "FAIL: $*" >&2; exit 1; }

# The environment of a user who installed seer: no build folder anywhere.
run_clean() {  # run_clean BIN_DIR COMMAND ARGS...
  local bin_dir=$1
  shift
  env -i HOME="$HOME" TMPDIR="${TMPDIR:-/tmp}" LANG=C.UTF-8 PATH="$bin_dir:/usr/bin:/bin" "$@"
}

# check_race BIN_DIR WORK_DIR COMPILER SOURCE VARIABLE NAME
check_race() {
  local bin_dir=$1 work=$2 compiler=$3 source=$4 variable=$5 name=$6
  local line
  line=$(grep -n 'seer: race' "$source" | head -1 | cut -d: -f1)
  run_clean "$bin_dir" "$compiler" -O1 -g "$source" -o "$work/$name" -pthread \
    || fail "$compiler could not build $source"
  run_clean "$bin_dir" seer record -q --sync=inproc -o "$work/$name.seer" -- "$work/$name" >"$work/$name.out" \
    || fail "seer record of $name (built with $compiler) failed"
  local status=0
  run_clean "$bin_dir" seer analyze --analysis hb --fail-on-findings "$work/$name.seer" >"$work/$name.txt" || status=$?
  [ $status = 1 ] || { cat "$work/$name.txt"; fail "seer analyze of $name: exit $status, expected 1 (a race)"; }
  grep -q "$variable" "$work/$name.txt" || { cat "$work/$name.txt"; fail "the report of $name does not name '$variable'"; }
  grep -q "$(basename "$source"):$line" "$work/$name.txt" \
    || { cat "$work/$name.txt"; fail "the report of $name does not name $(basename "$source"):$line"; }
  echo "ok: $compiler -> seer record -> seer analyze: the race on '$variable' at $(basename "$source"):$line"
}

check_installed_seer() {
  local bin_dir=$1 lib_dir=$2 source_dir=$3 work=$4 cxx=${5:-}
  mkdir -p "$work"
  local tool
  for tool in seer seer-cc seer-c++ seer-clang seer-clang++; do
    [ "$(run_clean "$bin_dir" bash -c "command -v $tool")" = "$bin_dir/$tool" ] \
      || fail "$tool does not resolve to $bin_dir/$tool in the clean environment"
  done
  local version
  version=$(run_clean "$bin_dir" seer --version) || fail "seer --version failed"
  [[ "$version" == "seer "* ]] || fail "seer --version printed '$version'"
  echo "ok: $bin_dir/seer --version: $version"

  check_race "$bin_dir" "$work" seer-cc "$source_dir/racy.c" counter racy_c

  run_clean "$bin_dir" seer record -q --sync=preload -o "$work/maps.seer" -- cat /proc/self/maps >"$work/maps.txt" \
    || fail "seer record --sync=preload of cat failed"
  grep -qF "$lib_dir/libseer_rt.so" "$work/maps.txt" \
    || { grep seer "$work/maps.txt" >&2; fail "the preloaded runtime is not $lib_dir/libseer_rt.so"; }
  echo "ok: seer record --sync=preload preloads $lib_dir/libseer_rt.so"

  if [ "$cxx" = cxx ]; then
    check_race "$bin_dir" "$work" seer-c++ "$source_dir/racy.cc" total racy_cxx
    [ -f "$lib_dir/seer_clang_wide_access.so" ] || fail "$lib_dir/seer_clang_wide_access.so is not installed"
    check_race "$bin_dir" "$work" seer-clang++ "$source_dir/racy.cc" total racy_clang
  fi
}
