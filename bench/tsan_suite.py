#!/usr/bin/env python3
"""ThreadSanitizer's own test suite (LLVM 14's compiler-rt/test/tsan), run under seer.

A measurement, not a test: the suite is not ours and is not in the tree. Get it
from Debian's source package (deb-src lines needed):

    apt-get source --download-only llvm-toolchain-14
    tar -xJf llvm-toolchain-14_*.orig.tar.xz --wildcards \\
        '*/compiler-rt/test/tsan/*' '*/compiler-rt/test/sanitizer_common/print_address.h'

then run, from a build directory of seer (as root: the recorder's defaults):

    python3 bench/tsan_suite.py LLVM_SRC/compiler-rt BUILD_DIR [--jobs N] [--only NAME...]

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
"""
import argparse
import concurrent.futures
import glob
import json
import os
import re
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
                 r"%link_libcxx_tsan", r"-DBUILD_SO", r"-shared"]


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


def run_one(path, args, shim_obj, out_dir):
    name = os.path.relpath(path, args.tests)
    text = open(path, errors="replace").read()
    want = TRUE_EXPECTATION.get(name, expectation(text))
    if want is None or any(re.search(p, text) for p in SKIP_PATTERNS):
        return name, "skipped", None, ""
    cc = os.path.join(args.build, "tools", "seer-clang++" if path.endswith(".cpp") else "seer-clang")
    seer = os.path.join(args.build, "cli", "seer")
    base = os.path.join(out_dir, re.sub(r"[/.]", "_", name))
    # The -D flags of the first RUN line that compiles (the program's variant).
    run = next((l for l in text.splitlines() if "RUN:" in l and "%clang" in l), "")
    defines = re.findall(r"(-D\S+)", run)
    # Sun RPC left glibc (2.32); libtirpc-dev has its headers and library, where
    # ThreadSanitizer's lit finds the "sunrpc" feature. Without it: not run, as there.
    rpc = []
    if "REQUIRES: sunrpc" in text:
        if not os.path.isfile("/usr/include/tirpc/rpc/xdr.h"):
            return name, "skipped", None, ""
        rpc = ["-I/usr/include/tirpc", "-ltirpc"]
    build = [cc, "-O1", *defines, "-I" + args.tests, "-I" + os.path.join(args.tests, ".."), path, shim_obj, "-o", base,
             "-lpthread", "-ldl", "-lm", *rpc]
    r = subprocess.run(build, capture_output=True, text=True)
    if r.returncode != 0:
        return name, "not-built", want, (r.stderr.strip().splitlines() or [""])[-1][:160]
    rec = subprocess.run(["timeout", "120", seer, "record", "--sync=inproc", "-o", base + ".seer", "--", base],
                         capture_output=True, text=True, cwd=out_dir)
    if not os.path.exists(base + ".seer") or "corruption" in rec.stderr:
        return name, "not-recorded", want, (rec.stderr.strip().splitlines() or [""])[-1][:160]
    # A forked child's trace is beside the parent's (base.PID.seer): each is analysed.
    traces = [base + ".seer"] + sorted(glob.glob(glob.escape(base) + ".*.seer"))
    hb, inversions, lost = [], 0, 0
    for trace in traces:
        an = subprocess.run([seer, "analyze", "--format", "json", "-o", trace + ".json", trace],
                            capture_output=True, text=True)
        if an.returncode != 0 or not os.path.exists(trace + ".json"):
            return name, "not-analysed", want, (an.stderr.strip().splitlines() or [""])[-1][:160]
        report = json.load(open(trace + ".json"))
        hb += report.get("races", {}).get("hb", {}).get("pairs", [])
        inversions += len(report.get("lock_order_inversions", [])) + len(report.get("deadlocks", []))
        lost += report.get("trace", {}).get("lost_events", 0)
    got = "race" if hb else ("inversion" if inversions else "clean")
    detail = f"hb pairs {len(hb)}, inversions/deadlocks {inversions}, lost {lost}, traces {len(traces)}"
    if hb:
        p = hb[0]
        detail += f"; first {p['first'].get('function')}:{p['first'].get('line')} vs " \
                  f"{p['second'].get('function')}:{p['second'].get('line')} ({p.get('variable')})"
    if want == got or (want == "inversion" and got == "race" and inversions):
        return name, "right", want, detail
    if want == "clean":
        return name, "false-race" if hb else "false-inversion", want, detail
    return name, "missed-race" if want == "race" else "missed-inversion", want, detail


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("compiler_rt", help="LLVM 14's compiler-rt directory")
    ap.add_argument("build", help="seer's build directory")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--only", nargs="*", default=[])
    ap.add_argument("--keep", help="directory for the binaries, traces and reports (default: a temporary one)")
    args = ap.parse_args()
    args.build = os.path.abspath(args.build)
    args.tests = os.path.abspath(os.path.join(args.compiler_rt, "test", "tsan"))
    if not os.path.isfile(os.path.join(args.tests, "test.h")):
        sys.exit(f"tsan_suite: no test.h under {args.tests}: give LLVM 14's compiler-rt directory")
    out_dir = args.keep or tempfile.mkdtemp(prefix="seer-tsan-suite.")
    os.makedirs(out_dir, exist_ok=True)
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
    counts = {}
    results = []
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        for name, verdict, want, detail in pool.map(lambda p: run_one(p, args, shim_obj, out_dir), paths):
            counts[verdict] = counts.get(verdict, 0) + 1
            results.append((name, verdict, want, detail))
            if verdict != "skipped":
                print(f"{verdict:16} {name:40} expected {want}: {detail}", flush=True)
    measured = sum(v for k, v in counts.items() if k != "skipped")
    print(f"\nprograms measured: {measured} (skipped: {counts.get('skipped', 0)}, outputs in {out_dir})")
    for k in ["right", "false-race", "false-inversion", "missed-race", "missed-inversion", "not-built",
              "not-recorded", "not-analysed"]:
        print(f"  {k:18} {counts.get(k, 0)}")


if __name__ == "__main__":
    main()
