// The family of tiny random traces the oracle checks run on: 2-3 threads, 6-12
// generated steps (a few more events with fork/join and releases), every feature
// of the generator switched on for some seeds.
#pragma once

#include <cstdint>
#include <random>
#include <vector>

#include "tests/support/random_trace.h"

namespace seer::test {

inline RandomTraceOptions TinyTraceOptions(uint64_t seed) {
  RandomTraceOptions o;
  o.threads = 2 + seed % 2;
  o.events = 6 + seed % 7;
  o.locks = 1 + seed % 2;
  o.variables = 1 + seed % 2;
  o.fork_join = seed % 3 != 0;
  o.rwlocks = seed % 5 == 1;
  o.atomics = seed % 6 == 2;
  o.signals = seed % 7 == 3;
  return o;
}

// TinyTraceOptions with frees and allocs of the variables for one seed in
// four, for the checks of the race engines against the oracle.
inline RandomTraceOptions TinyTraceOptionsWithFrees(uint64_t seed) {
  RandomTraceOptions o = TinyTraceOptions(seed);
  if (seed % 4 == 1) o.frees = 0.25;
  return o;
}

// Each access of variable v becomes a random range near v's block: 1, 2, 4 or 8
// bytes at a random offset, some crossing a word boundary, so accesses of one
// variable overlap in part, in whole or not at all. An alloc or free of v
// (RandomTraceOptions::frees) covers v's 16-byte block.
inline std::vector<Event> WithRandomRanges(std::vector<Event> trace, uint64_t seed) {
  std::mt19937_64 rng(seed);
  for (Event& e : trace) {
    if (e.kind == EventKind::kAlloc || e.kind == EventKind::kFree) {
      e.object = 0x100 + 16 * e.object;
      e.aux = 16;
      continue;
    }
    if (!IsAccess(e.kind) && !IsAtomicAccess(e.kind)) continue;
    e.object = 0x100 + 16 * e.object + rng() % 12;
    e.aux = uint64_t{1} << (rng() % 4);
  }
  return trace;
}

}  // namespace seer::test
