#!/usr/bin/env python3
"""ThreadSanitizer's own test suite (LLVM 14's compiler-rt/test/tsan), run under seer.

A measurement, not a test: the suite is not ours and is not in the tree. Get it
from Debian's source package (deb-src lines needed):

    apt-get source --download-only llvm-toolchain-14
    tar -xJf llvm-toolchain-14_*.orig.tar.xz --wildcards \\
        '*/compiler-rt/test/tsan/*' '*/compiler-rt/test/sanitizer_common/print_address.h'

then run, from a build directory of seer (as root: the recorder's defaults):

    python3 bench/tsan_suite.py LLVM_SRC/compiler-rt BUILD_DIR [--jobs N] [--only NAME...] [--tool seer|tsan|both]

(bench/tsan_suite.sh does both steps.)

Each Linux test program whose expectation is one of "a data race", "a
lock-order inversion" or "no report" (its FileCheck lines; a program that
checks for no report at all must run clean) is built with
seer-clang / seer-clang++ at -O1, recorded with `seer record --sync=inproc` and
analysed with the default analyses. A race is what ThreadSanitizer would call
one: a pair from the hb engine (ThreadSanitizer is happens-before based). The
script prints one line per program and a table: programs right, false races,
missed races, missed inversions, programs that did not build or record.

The suite's "invisible barrier" (__tsan_testonly_barrier_*) orders threads
without ThreadSanitizer seeing it; here it is a file built without seer's
hooks, so seer does not see it either.

--tool tsan measures ThreadSanitizer itself on the same programs, with the same
verdicts: each is built with clang-14 -fsanitize=thread as the suite's lit
builds it (its flags, test.h as it is: the runtime has the barrier) at -O1 with
the defines and libraries of the seer build, run as lit runs it (its
TSAN_OPTIONS, %deflake re-runs until a report), and judged by the reports on
stderr: "data race" is a race, "lock-order-inversion" an inversion, no report
or another kind clean. "not-run": its runtime stopped (FATAL). --tool both runs
the two, prints both tables and the programs where they differ.
"""
import argparse
import concurrent.futures
import glob
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

SHIM = r"""
/* The suite's invisible barrier, built without instrumentation. */
#include <sched.h>
typedef unsigned invisible_barrier_t;
void __tsan_testonly_barrier_init(invisible_barrier_t *b, unsigned count) {
  __atomic_store_n(b, count << 24, __ATOMIC_RELAXED);
}
void __tsan_testonly_barrier_wait(invisible_barrier_t *b) {
  /* The count in the top byte, arrivals below it: a round ends when they reach a multiple of the count. */
  unsigned old = __atomic_fetch_add(b, 1, __ATOMIC_RELAXED);
  unsigned count = old >> 24, old_epoch = (old & 0xffffff) / count;
  for (;;) {
    unsigned cur_epoch = (__atomic_load_n(b, __ATOMIC_RELAXED) & 0xffffff) / count;
    if (cur_epoch != old_epoch) return;
    sched_yield();
  }
}
unsigned long __tsan_testonly_shadow_stack_current_size(void) { return 0; }
"""

# Programs that test ThreadSanitizer itself (its flags, reports, internals,
# other platforms), not the program's concurrency.
# Also those that test its flags and suppressions (TSAN_OPTIONS, suppression
# files, -fsanitize-ignorelist, __tsan_default_options): seer has its own.
SKIP_PATTERNS = [r"UNSUPPORTED:.*linux", r"REQUIRES:.*darwin", r"java\.h", r"__tsan_java",
                 r"%env_tsan_opts", r"TSAN_OPTIONS", r"suppressions", r"ignorelist", r"__tsan_default_options",
                 r"__tsan_get_", r"__tsan_on_report", r"__tsan_create_fiber", r"__tsan_switch_to_fiber",
                 r"%link_libcxx_tsan", r"-DBUILD_SO", r"-shared",
                 r"__tsan_locate_address"]  # its debugging interface, as __tsan_get_*


# Programs whose own comments say that their expectation is not the truth.
# stack_sync_reuse.cpp: "The data race CHECK-NOT below actually must be CHECK,
# because the program does contain the data race on global."
TRUE_EXPECTATION = {"stack_sync_reuse.cpp": "race"}


def expectation(text):
    """'race', 'inversion', 'clean' or None (something else is checked), for
    the program's first variant: the first RUN line that runs FileCheck, with
    its check prefixes (CHECK unless it names others)."""
    run = next((l for l in text.splitlines() if "RUN:" in l and "FileCheck" in l), "")
    named = re.findall(r"--check-prefix(?:es)?=(\S+)", run.replace("%os", "Linux"))
    prefixes = [p for group in named for p in group.split(",")] or ["CHECK"]
    directive = r"//\s*(" + "|".join(map(re.escape, prefixes)) + r")(-(NOT|NEXT|SAME|DAG|LABEL|EMPTY))?:"
    checks = [l for l in text.splitlines() if re.search(directive, l)]
    positive = [l for l in checks if not re.search(r"-NOT:", l)]
    warn = [l for l in positive if re.search(r"ThreadSanitizer:|WARNING:|data race|lock-order-inversion", l)]
    if any("data race" in l for l in warn):
        others = [l for l in warn if "data race" not in l and "WARNING" in l]
        return None if others else "race"
    if any("lock-order-inversion" in l for l in warn):
        return "inversion"
    if warn:
        return None  # another kind of report (thread leak, signal-unsafe call, double lock, ...)
    # No report checked for: the program must run clean (a report would make
    # ThreadSanitizer's run exit 66 and the RUN line fail), unless the RUN line
    # expects a failure.
    if re.search(r"\bnot\b", run) or (not run and re.search(r"RUN:.*\bnot\b", text)):
        return None
    return "clean"


def program(path, args):
    """(name, expectation, text, build flags), the expectation None when the
    program is not measured. The flags are the ones both tools' builds share."""
    name = os.path.relpath(path, args.tests)
    text = open(path, errors="replace").read()
    want = TRUE_EXPECTATION.get(name, expectation(text))
    if want is None or any(re.search(p, text) for p in SKIP_PATTERNS):
        return name, None, text, []
    # The -D flags of the first RUN line that compiles (the program's variant).
    run = next((l for l in text.splitlines() if "RUN:" in l and "%clang" in l), "")
    defines = re.findall(r"(-D\S+)", run)
    # Sun RPC left glibc (2.32); libtirpc-dev has its headers and library, where
    # ThreadSanitizer's lit finds the "sunrpc" feature. Without it: not run, as there.
    rpc = []
    if "REQUIRES: sunrpc" in text:
        if not os.path.isfile("/usr/include/tirpc/rpc/xdr.h"):
            return name, None, text, []
        rpc = ["-I/usr/include/tirpc", "-ltirpc"]
    flags = ["-O1", *defines, "-I" + args.tests, "-I" + os.path.join(args.tests, ".."), path]
    return name, want, text, (flags, ["-lpthread", "-ldl", "-lm", *rpc])


def judge(want, races, inversions):
    """The verdict, the same for both tools: a race where an inversion is
    expected is right when the inversion is reported too."""
    got = "race" if races else ("inversion" if inversions else "clean")
    if want == got or (want == "inversion" and got == "race" and inversions):
        return "right"
    if want == "clean":
        return "false-race" if races else "false-inversion"
    return "missed-race" if want == "race" else "missed-inversion"


def last_line(text):
    return (text.strip().splitlines() or [""])[-1][:160]


def run_seer(path, want, flags, args, shim_obj, base):
    cc = os.path.join(args.build, "tools", "seer-clang++" if path.endswith(".cpp") else "seer-clang")
    seer = os.path.join(args.build, "cli", "seer")
    compile_flags, libs = flags
    r = subprocess.run([cc, *compile_flags, shim_obj, "-o", base, *libs], capture_output=True, text=True)
    if r.returncode != 0:
        return "not-built", last_line(r.stderr)
    rec = subprocess.run(["timeout", "120", seer, "record", "--sync=inproc", "-o", base + ".seer", "--", base],
                         capture_output=True, text=True, cwd=os.path.dirname(base))
    if not os.path.exists(base + ".seer") or "corruption" in rec.stderr:
        return "not-recorded", last_line(rec.stderr)
    # A forked child's trace is beside the parent's (base.PID.seer): each is analysed.
    traces = [base + ".seer"] + sorted(glob.glob(glob.escape(base) + ".*.seer"))
    hb, inversions, lost = [], 0, 0
    for trace in traces:
        an = subprocess.run([seer, "analyze", "--format", "json", "-o", trace + ".json", trace],
                            capture_output=True, text=True)
        if an.returncode != 0 or not os.path.exists(trace + ".json"):
            return "not-analysed", last_line(an.stderr)
        report = json.load(open(trace + ".json"))
        hb += report.get("races", {}).get("hb", {}).get("pairs", [])
        inversions += len(report.get("lock_order_inversions", [])) + len(report.get("deadlocks", []))
        lost += report.get("trace", {}).get("lost_events", 0)
    detail = f"hb pairs {len(hb)}, inversions/deadlocks {inversions}, lost {lost}, traces {len(traces)}"
    if hb:
        p = hb[0]
        detail += f"; first {p['first'].get('function')}:{p['first'].get('line')} vs " \
                  f"{p['second'].get('function')}:{p['second'].get('line')} ({p.get('variable')})"
    return judge(want, hb, inversions), detail


# ThreadSanitizer's lit (lit.cfg.py): %clang_tsan is clang -fsanitize=thread
# -Wall with the debug info flags, %clangxx_tsan adds -std=c++11; the tests run
# with TSAN_OPTIONS=atexit_sleep_ms=0, and %deflake re-runs a program up to
# TSAN_TEST_DEFLAKE_THRESHOLD times (10 by default) until it reports.
TSAN_CFLAGS = ["-fsanitize=thread", "-Wall", "-gline-tables-only"]
TSAN_CXXFLAGS = TSAN_CFLAGS + ["-std=c++11"]
TSAN_ENV = {"TSAN_OPTIONS": "atexit_sleep_ms=0"}
REPORT = "WARNING: ThreadSanitizer: "


def run_tsan_once(binary, cwd):
    """ThreadSanitizer's report text (stderr), the exit code and whether ASLR
    was turned off. Its report does not stop the program (halt_on_error=0 is
    the default); the exit code (66 after a report) is not used."""
    env = {**os.environ, **TSAN_ENV}
    cmd = ["timeout", "120", binary]
    r = subprocess.run(cmd, capture_output=True, text=True, errors="replace", cwd=cwd, env=env)
    # LLVM 14's runtime needs its memory layout; with a kernel's larger ASLR
    # ranges it stops with this, and runs with ASLR off.
    if "unexpected memory mapping" in r.stderr:
        r = subprocess.run(["setarch", os.uname().machine, "-R", *cmd], capture_output=True, text=True,
                           errors="replace", cwd=cwd, env=env)
        return r.stderr, r.returncode, True
    return r.stderr, r.returncode, False


def run_tsan(path, want, flags, text, base):
    """The program built and run as ThreadSanitizer's lit does, with test.h
    as it is (the runtime has the invisible barrier), judged by the reports."""
    cxx = path.endswith(".cpp")
    compile_flags, libs = flags
    binary = base + ".tsan"
    r = subprocess.run(["clang++-14" if cxx else "clang-14", *(TSAN_CXXFLAGS if cxx else TSAN_CFLAGS),
                        *compile_flags, "-o", binary, *libs], capture_output=True, text=True)
    if r.returncode != 0:
        return "not-built", last_line(r.stderr)
    # %deflake on the first RUN line that runs the program.
    run = next((l for l in text.splitlines() if "RUN:" in l and "%run" in l), "")
    tries = int(os.environ.get("TSAN_TEST_DEFLAKE_THRESHOLD", "10")) if "%deflake" in run else 1
    for attempt in range(1, tries + 1):
        err, code, no_aslr = run_tsan_once(binary, os.path.dirname(base))
        if REPORT in err:
            break
    open(binary + ".txt", "w").write(err)
    if "FATAL: ThreadSanitizer" in err:
        return "not-run", last_line(err)
    kinds = re.findall(re.escape(REPORT) + r"([a-z-]+(?: [a-z-]+)*)", err)
    races = [k for k in kinds if k.startswith("data race")]
    inversions = [k for k in kinds if k.startswith("lock-order-inversion")]
    others = sorted(set(kinds) - set(races) - set(inversions))
    detail = f"data races {len(races)}, inversions {len(inversions)}, runs {attempt}, exit {code}"
    detail += (", timed out" if code == 124 else "") + ("; ASLR off (setarch -R)" if no_aslr else "")
    if others:
        detail += "; other reports: " + ", ".join(others)
    summary = next((l for l in err.splitlines() if l.startswith("SUMMARY: ThreadSanitizer: data race")), "")
    summary = re.sub(r" \(BuildId: \w+\)", "", summary)
    where = re.search(r"(\S+) in (.+)$", summary)
    if where:
        detail += f"; first {where[1].rsplit('/', 1)[-1]} in {where[2]}"
    return judge(want, races, inversions), detail


def run_one(path, args, shim_obj, out_dir):
    """(name, expectation, {tool: (verdict, detail)}), the tools the options name."""
    name, want, text, flags = program(path, args)
    if want is None:
        return name, None, {tool: ("skipped", "") for tool in args.tools}
    base = os.path.join(out_dir, re.sub(r"[/.]", "_", name))
    results = {}
    if "seer" in args.tools:
        results["seer"] = run_seer(path, want, flags, args, shim_obj, base)
    if "tsan" in args.tools:
        results["tsan"] = run_tsan(path, want, flags, text, base)
    return name, want, results


# The table's rows; a tool leaves out those that cannot happen to it.
ROWS = {"seer": ["right", "false-race", "false-inversion", "missed-race", "missed-inversion", "not-built",
                 "not-recorded", "not-analysed"],
        "tsan": ["right", "false-race", "false-inversion", "missed-race", "missed-inversion", "not-built",
                 "not-run"]}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("compiler_rt", help="LLVM 14's compiler-rt directory")
    ap.add_argument("build", nargs="?", help="seer's build directory (not needed with --tool tsan)")
    ap.add_argument("--tool", choices=["seer", "tsan", "both"], default="seer",
                    help="seer (default), ThreadSanitizer (clang-14 -fsanitize=thread), or both side by side")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--only", nargs="*", default=[])
    ap.add_argument("--keep", help="directory for the binaries, traces and reports (default: a temporary one)")
    args = ap.parse_args()
    args.tools = ["seer", "tsan"] if args.tool == "both" else [args.tool]
    if "seer" in args.tools and not args.build:
        ap.error("seer's build directory is needed (or --tool tsan)")
    if "tsan" in args.tools and not (shutil.which("clang-14") and shutil.which("clang++-14")):
        sys.exit("tsan_suite: --tool tsan builds with clang-14 and clang++-14 (Debian's clang-14)")
    args.build = os.path.abspath(args.build or ".")
    args.tests = os.path.abspath(os.path.join(args.compiler_rt, "test", "tsan"))
    if not os.path.isfile(os.path.join(args.tests, "test.h")):
        sys.exit(f"tsan_suite: no test.h under {args.tests}: give LLVM 14's compiler-rt directory")
    out_dir = os.path.abspath(args.keep or tempfile.mkdtemp(prefix="seer-tsan-suite."))
    os.makedirs(out_dir, exist_ok=True)
    shim_obj = None
    if "seer" in args.tools:
        shim_c = os.path.join(out_dir, "invisible_barrier.c")
        open(shim_c, "w").write(SHIM)
        shim_obj = shim_c[:-2] + ".o"
        subprocess.run(["cc", "-O1", "-c", shim_c, "-o", shim_obj], check=True)
    paths = []
    for sub in ["", "Linux"]:
        d = os.path.join(args.tests, sub)
        paths += sorted(os.path.join(d, f) for f in os.listdir(d) if f.endswith((".c", ".cpp")))
    if args.only:
        paths = [p for p in paths if any(o in p for o in args.only)]
    counts = {tool: {} for tool in args.tools}
    differ = []
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        for name, want, results in pool.map(lambda p: run_one(p, args, shim_obj, out_dir), paths):
            for tool, (verdict, detail) in results.items():
                counts[tool][verdict] = counts[tool].get(verdict, 0) + 1
                if verdict != "skipped":
                    label = f"{tool:5} " if len(args.tools) > 1 else ""
                    print(f"{label}{verdict:16} {name:40} expected {want}: {detail}", flush=True)
            if len({verdict for verdict, _ in results.values()}) > 1:
                differ.append((name, want, results))
    first = counts[args.tools[0]]
    measured = sum(v for k, v in first.items() if k != "skipped")
    print(f"\nprograms measured: {measured} (skipped: {first.get('skipped', 0)}, outputs in {out_dir})")
    rows = [r for tool in args.tools for r in ROWS[tool]]
    rows = sorted(set(rows), key=rows.index)
    if len(args.tools) == 1:
        for k in rows:
            print(f"  {k:18} {first.get(k, 0)}")
        return
    print(f"  {'':18} " + " ".join(f"{tool:>5}" for tool in args.tools))
    for k in rows:
        print(f"  {k:18} " + " ".join(f"{counts[tool].get(k, 0) if k in ROWS[tool] else '-':>5}"
                                      for tool in args.tools))
    print(f"\nwhere they differ: {len(differ)}")
    for name, want, results in differ:
        print(f"  {name:40} expected {want:9} " + ", ".join(f"{t} {v}" for t, (v, _) in results.items()))


if __name__ == "__main__":
    main()
