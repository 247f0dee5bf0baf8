#!/usr/bin/env bash
# Writes seer's manual pages, gzipped as Debian wants them (gzip -9n: no name, no
# time stamp, so the same binary gives the same bytes):
#   seer.1.gz              from `seer --help` (help2man)
#   seer-COMMAND.1.gz      from `seer COMMAND --help`, one per subcommand that
#                          `seer --help` lists (hidden ones are not listed)
#   seer-cc.1.gz           the hand-written page of the compiler wrappers, and
#   seer-c++.1.gz, seer-clang.1.gz, seer-clang++.1.gz   pointers to it (.so)
#
# usage: man_pages.sh SEER_BINARY VERSION SEER_CC_PAGE OUTPUT_DIR
set -euo pipefail
if [ $# -ne 4 ]; then
  echo "usage: $0 SEER_BINARY VERSION SEER_CC_PAGE OUTPUT_DIR" >&2
  exit 2
fi
seer=$1 version=$2 cc_page=$3 out=$4
command -v help2man >/dev/null || { echo "man_pages.sh: help2man not found (Debian: help2man)" >&2; exit 2; }

work=$(mktemp -d "${TMPDIR:-/tmp}/seer-man.XXXXXX")
trap 'rm -rf "$work"' EXIT
mkdir -p "$out"
rm -f "$out"/*.1.gz   # no page of a subcommand that is gone

# help2man names a page after the program it runs, so each subcommand gets a
# two-line stand-in called seer-COMMAND; their pages and seer's point at each other.
printf '[SEE ALSO]\n.BR seer (1)\n' >"$work/see-seer"
page() {  # page NAME PROGRAM DESCRIPTION [HELP2MAN OPTIONS...]
  local name=$1 program=$2 description=$3
  shift 3
  help2man --no-info --section=1 --source="seer $version" --version-string="$version" \
    --name="$description" --output="$work/$name.1" "$@" "$program"
  gzip -9n -c "$work/$name.1" >"$out/$name.1.gz"
}

in_commands=0
see_also=()
while IFS= read -r line; do
  if [ "$line" = "Subcommands:" ]; then in_commands=1; continue; fi
  [ $in_commands = 1 ] || continue
  [[ "$line" =~ ^\ +([a-z][a-z-]*)\ +(.+)$ ]] || break
  command=${BASH_REMATCH[1]} description=${BASH_REMATCH[2]}
  printf '#!/bin/sh\nexec "%s" %s "$@"\n' "$seer" "$command" >"$work/seer-$command"
  chmod +x "$work/seer-$command"
  # The description as a NAME line: lower-case first letter, no final full stop.
  page "seer-$command" "$work/seer-$command" "$(printf '%s' "${description,}" | sed 's/\.$//')" \
    --include="$work/see-seer"
  see_also+=(".BR seer-$command (1),")
done < <("$seer" --help)
if [ ${#see_also[@]} = 0 ]; then
  echo "man_pages.sh: no subcommands found in '$seer --help'" >&2
  exit 1
fi
printf '[SEE ALSO]\n%s\n.BR seer-cc (1)\n' "$(printf '%s\n' "${see_also[@]}")" >"$work/see-commands"
page seer "$seer" "record one run of a pthread program and predict its races, deadlocks and atomicity violations" \
  --include="$work/see-commands"

gzip -9n -c "$cc_page" >"$out/seer-cc.1.gz"
for twin in seer-c++ seer-clang seer-clang++; do
  printf '.so man1/seer-cc.1\n' >"$work/$twin.1"
  gzip -9n -c "$work/$twin.1" >"$out/$twin.1.gz"
done
