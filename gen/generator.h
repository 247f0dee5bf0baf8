// A generator of synthetic, well-formed traces for tests and benchmarks: a
// simulated scheduler interleaves threads that run blocks of reads and writes,
// some under nested locks, with lock semantics respected in the emitted order.
// The same options and seed give the same trace, event for event.
#pragma once

#include <cstdint>
#include <functional>

#include "seer/status.h"
#include "seer/trace.h"

namespace seer::gen {

struct GenOptions {
  uint64_t events = 1000000;  // exactly this many events
  uint32_t threads = 4;       // thread 0 forks the others first and joins them last
  uint32_t locks = 4;
  uint64_t variables = 64;
  uint64_t locations = 256;  // access sites, each tied to one (variable, read|write)
  uint64_t seed = 1;
  double protected_fraction = 0.7;      // share of access blocks run under locks
  double write_fraction = 0.3;          // share of access sites that write
  uint32_t max_nesting = 2;             // locks held at once, at most
  double random_order_fraction = 0.05;  // nested locks taken in random instead of id order
  uint32_t max_block = 4;               // accesses per block: 1 .. max_block
};

// InvalidArgument naming the offending option, or Ok.
Status ValidateGenOptions(const GenOptions& options);

// Streams the trace into `w` (which the caller creates and closes); never holds
// more than one block per thread in memory. Locations: access site p has pc p;
// acquire / release of lock l have pc locations + 2l / locations + 2l + 1; fork and
// join have pc locations + 2·locks and locations + 2·locks + 1.
Status Generate(const GenOptions& options, TraceWriter* w, const std::function<void(uint64_t events)>& progress = {});

}  // namespace seer::gen
