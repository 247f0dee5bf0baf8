// Random small well-formed traces for property tests and the brute-force oracle:
// per-thread programs interleaved by a random scheduler that respects lock
// semantics (no acquire of a lock another thread holds; shared holders only
// with shared holders), fork before a child's first event, join after its last.
#pragma once

#include <cstdint>
#include <random>
#include <vector>

#include "seer/event.h"

namespace seer::test {

struct RandomTraceOptions {
  uint32_t threads = 3;  // including the main thread 0
  uint32_t events = 20;  // approximate; fork/join/releases are added
  uint32_t locks = 2;
  uint32_t variables = 2;
  uint32_t max_nesting = 2;
  double write_fraction = 0.5;
  bool fork_join = true;   // main forks the others first and joins them last
  bool rwlocks = false;    // some acquisitions in shared mode
  bool atomics = false;    // some accesses are atomic
  bool signals = false;    // some signal/wait pairs (wait only after a signal)
  double nonblocking = 0;  // fraction of acquisitions recorded as trylocks or timed locks
  double frees = 0;        // fraction of accesses that are instead a free or an alloc of the variable
};

// Same seed, same trace. Locations: each (thread, step) gets its own pc, so pcs
// identify program points; accesses of the same variable in a loop share none.
std::vector<Event> RandomTrace(const RandomTraceOptions& options, uint64_t seed);

// Traces rich in lock cycles, for the deadlock-side engines: three threads
// nesting up to three of three locks, a tenth of the acquisitions trylocks or
// timed, and no fork/join (which orders most lock cycles away).
inline RandomTraceOptions LockCycleTraceOptions() {
  RandomTraceOptions o;
  o.threads = 3;
  o.events = 60;
  o.locks = 3;
  o.max_nesting = 3;
  o.nonblocking = 0.1;
  o.fork_join = false;
  return o;
}

}  // namespace seer::test
