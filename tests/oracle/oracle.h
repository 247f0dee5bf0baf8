// The brute-force oracle: enumerates every correct reordering of a tiny trace
// (a dozen events, two or three threads) and decides its predictable races and
// predictable deadlocks by definition, so that the engines can be checked against it.
#pragma once

#include <cstdint>
#include <set>
#include <utility>
#include <vector>

#include "seer/event.h"

namespace seer::test {

// When does a read have to see the same write as in the trace?
enum class ReadRule {
  kAuto,             // kExplicitBranches if the trace has a kBranch event, else kEveryRead
  kEveryRead,        // every read in the reordering (each read is followed by a branch)
  kExplicitBranches  // only reads followed, in their thread, by a branch in the reordering
};

struct OracleOptions {
  ReadRule read_rule = ReadRule::kAuto;
  uint64_t max_states = 2'000'000;  // safety valve: the result says when it was hit
};

// A predicted deadlock: the blocked acquires (trace positions), sorted. A
// trylock or timed acquire (IsNonBlockingAcquire) is never blocked: facing a
// holder it returns instead.
using DeadlockCycle = std::vector<uint64_t>;

struct OracleResult {
  // Unordered pairs of trace positions (first < second) of conflicting accesses.
  // `races`: both accesses are enabled (the next event of their threads) after some
  // correct reordering -- the standard definition (WCP, SHB papers).
  std::set<std::pair<uint64_t, uint64_t>> races;
  // `adjacent_races`: some correct reordering ends with the two accesses, one right
  // after the other, both seeing their trace write -- the stricter definition of the
  // Lockset-W3 paper (TR Def. A.7), under which Lockset-W3 is complete. A subset of `races`.
  std::set<std::pair<uint64_t, uint64_t>> adjacent_races;
  std::set<std::pair<uint64_t, uint64_t>> race_pcs;           // (pc, pc) of `races`, smaller first
  std::set<std::pair<uint64_t, uint64_t>> adjacent_race_pcs;  // (pc, pc) of `adjacent_races`
  std::set<DeadlockCycle> deadlocks;
  uint64_t states = 0;     // distinct states explored
  bool truncated = false;  // max_states was hit: the sets may be incomplete
};

// Decides the predictable races and deadlocks of `trace` (events in total order,
// `index` = position). Atomics, condition variables, signals, barriers and
// alloc/free are lowered with predictor/common/sync_ops.h, as the engines do;
// a free is a write of every byte of its block (new variables start at the next alloc).
OracleResult RunOracle(const std::vector<Event>& trace, const OracleOptions& options = {});

}  // namespace seer::test
