// How `seer analyze` and `seer merge` set up glibc's heap. Both build a
// SeqCheck window's tables (tens of MB, most of them small blocks) for every
// window of a trace; with glibc's defaults the kernel zeroes and maps that
// memory 4 KB at a time, once per window, and on this project's VMs those
// page faults were a fifth to a third of the SeqCheck engines' CPU time
// (docs/seqcheck.md, "Cost on a 3M-event trace").
#pragma once

#include <string>

namespace seer::cli {

// Whether the subcommand `name` builds SeqCheck windows (analyze, merge).
bool BuildsWindows(const std::string& name);

// The value of GLIBC_TUNABLES that asks glibc's malloc for transparent huge
// pages (glibc.malloc.hugetlb=1) on top of `current` (the variable's value, null
// when unset); "" when `current` already sets glibc.malloc.hugetlb, to any
// value: the user's choice stands.
std::string TunablesWithHugePages(const char* current);

// Runs this program again, with the same arguments, descriptors and
// environment plus TunablesWithHugePages: glibc reads its tunables only as a
// process starts. Call it first thing in main, before anything is read or
// written. Returns (and the command runs on glibc's defaults) when the
// variable already says, or when the exec fails (no /proc, say).
void RestartWithHugePageHeap(char** argv);

// Keeps freed memory in the heap for the next window instead of giving it
// back to the kernel (mallopt). With one job the peak RSS is the same, since
// the next window takes it again; with N jobs each pool thread's heap keeps
// its last window's tables (docs/analyses.md, "Jobs"). `seer daemon`, which
// runs for days, keeps glibc's defaults and gives memory back.
void KeepFreedMemoryForTheNextWindow();

// Whether the user chose how many heaps (arenas) glibc's malloc keeps:
// MALLOC_ARENA_MAX, or glibc.malloc.arena_max in `tunables` (GLIBC_TUNABLES's
// value, null when unset).
bool UserSetArenas(const char* arena_max, const char* tunables);

// Makes every thread allocate from one heap (glibc's main arena) unless the
// user said otherwise (UserSetArenas). With a heap per thread, glibc's
// default, `--jobs` threads free blocks that others allocated (batches,
// windows): on a 132M-event trace --jobs 2 then spent a quarter of its CPU in
// malloc and took 229-246 s where one heap takes 102-104 s, and a 2B-event
// shard ran 5x slower (docs/analyses.md, "Jobs"). Call it before any thread
// starts.
void OneHeapForAllThreads();

}  // namespace seer::cli
