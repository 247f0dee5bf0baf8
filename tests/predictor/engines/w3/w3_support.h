// What the Lockset-W3 tests share: running both variants on a trace and
// comparing them, and the family of random traces they are compared on.
#pragma once

#include <gtest/gtest.h>

#include <set>
#include <string>
#include <utility>
#include <vector>

#include "tests/support/engine_runner.h"
#include "tests/support/random_trace.h"

namespace seer::test {

using Pairs = std::set<std::pair<uint64_t, uint64_t>>;

// Runs both variants; they must agree on these small traces.
inline Pairs W3Pairs(const std::vector<Event>& events) {
  Pairs exact = RacePcPairs(RunEngine("w3", events));
  Pairs linear = RacePcPairs(RunEngine("w3-linear", events));
  EXPECT_EQ(exact, linear) << "w3 and w3-linear disagree";
  return exact;
}

// Random traces of 2-4 threads with every feature of the generator for some seeds.
inline RandomTraceOptions AgreementTraceOptions(uint64_t seed) {
  RandomTraceOptions r;
  r.threads = 2 + seed % 3;
  r.events = 10 + seed % 40;
  r.locks = 1 + seed % 3;
  r.variables = 1 + seed % 4;
  r.rwlocks = seed % 4 == 1;
  r.atomics = seed % 5 == 2;
  r.signals = seed % 7 == 3;
  r.fork_join = seed % 2 == 0;
  return r;
}

// Both variants, the linear one with room for every edge of these traces: how
// they disagree on pairs or racy events ("" when they agree); *racy says whether
// the trace races at all.
inline std::string ExactLinearDifference(const std::vector<Event>& trace, bool* racy) {
  predictor::AnalysisOptions o;
  o.w3_edges = 1'000;
  auto exact = RunEngine("w3", trace, o);
  auto linear = RunEngine("w3-linear", trace, o);
  *racy = !exact.races[0].pairs.empty();
  if (RacePcPairs(exact) != RacePcPairs(linear)) return "different pairs";
  if (exact.races[0].racy_events != linear.races[0].racy_events) return "different racy event counts";
  return "";
}

}  // namespace seer::test
