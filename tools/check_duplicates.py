#!/usr/bin/env python3
"""Fails when a block of code stands twice in seer's sources (tests and
benchmarks aside): the same MIN_LINES lines or more, compared after folding
white space and leaving out blank lines, comments, #include lines and lone
punctuation. Such a block is one piece of logic written twice: make one serve
both. Prints each pair as FILE:FIRST-LAST ~ FILE:FIRST-LAST.

Usage: check_duplicates.py [SOURCE_ROOT] [--min-lines N]"""
import os
import re
import subprocess
import sys

FOLDERS = ("include", "runtime", "store", "interop", "gen", "predictor", "bpf", "recorder", "daemon", "cli", "tools")
SUFFIXES = (".c", ".cc", ".h")
PUNCTUATION = re.compile(r"^[{}()\[\];,]*$")


def significant_lines(path):
    """(line number, folded text) of the lines that carry code."""
    out = []
    in_block_comment = False
    with open(path, encoding="utf-8", errors="replace") as f:
        for number, raw in enumerate(f, 1):
            line = raw.strip()
            if in_block_comment:
                if "*/" in line:
                    in_block_comment = False
                continue
            if line.startswith("/*"):
                in_block_comment = "*/" not in line
                continue
            line = re.sub(r"\s*//.*$", "", line) if not line.startswith('"') else line
            if not line or line.startswith("#include") or line.startswith("*") or PUNCTUATION.match(line):
                continue
            out.append((number, " ".join(line.split())))
    return out


def main():
    args = sys.argv[1:]
    min_lines = 8
    if "--min-lines" in args:
        i = args.index("--min-lines")
        min_lines = int(args[i + 1])
        del args[i:i + 2]
    root = args[0] if args else os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
    files = subprocess.run(["git", "-C", root, "ls-files", "--", *FOLDERS], check=True, capture_output=True,
                           text=True).stdout.split()
    files = [f for f in files if f.endswith(SUFFIXES)]
    lines = {f: significant_lines(os.path.join(root, f)) for f in files}
    windows = {}
    for f, ls in lines.items():
        for i in range(len(ls) - min_lines + 1):
            key = "\n".join(text for _, text in ls[i:i + min_lines])
            windows.setdefault(key, []).append((f, i))
    # Each repeated window pairs its first place with each later one; runs of
    # consecutive windows between the same two files merge into one pair.
    pairs = {}
    for places in windows.values():
        if len(places) < 2:
            continue
        first = places[0]
        for other in places[1:]:
            if other[0] == first[0] and abs(other[1] - first[1]) < min_lines:
                continue  # a run that overlaps itself (repeated statements)
            pairs.setdefault((first[0], other[0], other[1] - first[1]), []).append(first[1])
    reported = []
    for (a, b, shift), starts in sorted(pairs.items()):
        starts.sort()
        run_start = prev = starts[0]
        for s in starts[1:] + [None]:
            if s is not None and s == prev + 1:
                prev = s
                continue
            la, lb = lines[a], lines[b]
            end = prev + min_lines - 1
            reported.append(f"{a}:{la[run_start][0]}-{la[end][0]} ~ {b}:{lb[run_start + shift][0]}-{lb[end + shift][0]}")
            if s is not None:
                run_start = prev = s
    for r in reported:
        print(r)
    print(f"check_duplicates: {len(files)} files, {len(reported)} blocks of {min_lines}+ lines written twice")
    return 1 if reported else 0


if __name__ == "__main__":
    sys.exit(main())
