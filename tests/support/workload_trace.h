// Larger random traces shaped like a program's run, for comparing engines with
// RAPID and for benchmarks: threads that read and write shared variables inside
// and outside (nested, lock-respecting) critical sections, each thread with a
// fixed set of program locations so that locations repeat as in real code.
#pragma once

#include <cstdint>
#include <vector>

#include "seer/event.h"

namespace seer::test {

struct WorkloadOptions {
  uint32_t threads = 4;
  uint32_t locks = 3;
  uint32_t variables = 1000;
  uint64_t events = 100000;   // scheduling steps; the trace is about this long
  bool fork_join = true;      // thread 0 forks the others first and joins them last
  uint64_t address_base = 0;  // variable v lives at address_base + v * size
  uint32_t size = 1;          // bytes per access
  bool reentrant = false;     // a thread may acquire a lock it holds (recursive locks)
};

// Same options and seed, same trace. Every lock is released at the end.
std::vector<Event> WorkloadTrace(const WorkloadOptions& options, uint64_t seed);

}  // namespace seer::test
