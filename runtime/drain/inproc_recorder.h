// Recording a program built with seer-cc / seer-c++ through its in-process
// runtime: creates the shared rings, runs the program with their descriptor in
// its environment, drains and merges the rings while it runs and writes the
// trace. `seer record --sync=inproc` calls RecordInproc.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "seer/status.h"
#include "seer/trace.h"

namespace seer {

struct InprocOptions {
  uint32_t max_rings = 1024;          // threads that can be recorded
  uint64_t ring_words = 1ull << 19;   // 8-byte words per thread ring (4 MiB), a power of two
  uint64_t wait_ns = 2000000000ull;   // a producer waits this long for room before dropping
  // The runtime records pthread synchronisation itself ("inproc"); false leaves
  // it to the eBPF probes and records only accesses, atomics, alloc/free.
  bool sync_inproc = true;
  // Ring contents copied out but not yet merged are held in memory up to this
  // bound; beyond it the collector pauses and the target waits for room (it
  // then runs at the recorder's speed; nothing is dropped unless the recorder
  // makes no room for wait_ns). 16 bytes per access: 1 GiB holds 64M accesses.
  // 0: DefaultSpoolBytes().
  uint64_t max_spool_bytes = 0;
  // While the target runs, merging and encoding run under SCHED_IDLE: on CPU
  // time no one else wants, so that a target using every core is not slowed by
  // them; the spool absorbs the difference. When the spool passes 3/4 of its
  // bound they run at normal priority until it is back under 1/4, and from the
  // target's exit on. False: normal priority throughout.
  bool merge_when_idle = true;
  TraceWriterOptions writer;
};

struct InprocResult {
  int exit_code = -1;        // the target's exit status, when it exited
  int term_signal = 0;       // the signal that killed it, 0 if none
  bool runtime_seen = false; // the target carried the runtime and attached to the rings
  uint64_t events = 0;
  uint64_t lost = 0;         // records dropped on ring overflow (also counted in the trace)
  uint32_t threads = 0;
  double wall_seconds = 0;   // from start to the target's exit
  double drain_seconds = 0;  // from the target's exit until the trace was closed
  uint64_t spool_peak_bytes = 0;  // most ring data held between collection and merge
  long max_rss_kb = 0;       // the target's peak resident set
  double target_cpu_seconds = 0;  // the target's user + system time
};

// Runs argv (argv[0] looked up in PATH), records it into `out_path`.
// Errors: the program cannot be run, the trace cannot be written, a ring is damaged.
Status RecordInproc(const std::vector<std::string>& argv, const InprocOptions& options,
                    const std::string& out_path, InprocResult* result);

// The spool bound when none is given: a quarter of the memory available now
// (MemAvailable), between 256 MiB and 4 GiB.
uint64_t DefaultSpoolBytes();

// True when the ELF file at `path` carries the runtime (the marker symbol).
// A name without a slash is looked up in PATH, as exec would.
bool CarriesRuntime(const std::string& path);

}  // namespace seer
