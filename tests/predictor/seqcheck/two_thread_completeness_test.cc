// On two-thread traces SeqCheck is complete (paper, Theorem 2). The project's
// brute-force oracle (tests/oracle) enumerates every correct reordering of tiny
// traces; on two-thread ones SeqCheck without prefix reduction must find exactly
// the oracle's deadlocks and confirm exactly the oracle's races. SeqCheck's
// default model takes every read to be followed by a branch: the oracle runs
// with ReadRule::kEveryRead.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <set>
#include <utility>
#include <vector>

#include "predictor/seqcheck/deadlocks.h"
#include "predictor/seqcheck/races.h"
#include "tests/oracle/oracle.h"
#include "tests/oracle/tiny_traces.h"
#include "tests/predictor/seqcheck/byte_variables.h"
#include "tests/support/random_trace.h"

namespace seer::predictor::seqcheck {
namespace {

using test::OracleOptions;
using test::OracleResult;
using test::ReadRule;

bool TwoThreads(const std::vector<Event>& trace) {
  for (const Event& e : trace)
    if (e.tid > 1 || ((e.kind == EventKind::kFork || e.kind == EventKind::kJoin) && e.object > 1)) return false;
  return true;
}

OracleResult Oracle(const std::vector<Event>& trace) {
  OracleOptions o;
  o.read_rule = ReadRule::kEveryRead;
  OracleResult r = test::RunOracle(trace, o);
  EXPECT_FALSE(r.truncated);
  return r;
}

// The tiny traces of the oracle checks, forced to two threads, and bigger ones
// with nested locks so that deadlocks occur often.
std::vector<Event> TinyTwoThreadTrace(uint64_t seed) {
  test::RandomTraceOptions o = test::TinyTraceOptions(seed);
  o.threads = 2;
  return test::RandomTrace(o, seed);
}
std::vector<Event> NestedTwoThreadTrace(uint64_t seed, double nonblocking = 0) {
  test::RandomTraceOptions o;
  o.nonblocking = nonblocking;
  o.threads = 2;
  o.fork_join = seed % 4 == 0;
  o.events = 10 + seed % 20;
  o.locks = 2 + seed % 2;
  o.variables = 1 + seed % 3;
  o.max_nesting = 2;
  o.rwlocks = seed % 3 == 1;
  o.signals = seed % 7 == 3;
  return test::RandomTrace(o, seed);
}

// Plain accesses and frees of the two threads that share a byte, at least one a
// write or free (test::ByteVariables): the pairs SeqCheck's race encoding
// decides (atomics are single events for it).
// `free_pairs`, when given, counts the oracle's pairs with a free on one side.
void CompareRaces(const std::vector<Event>& trace, uint64_t seed, uint64_t* total, uint64_t* free_pairs = nullptr) {
  const test::ByteVariables vars(trace);
  std::set<std::pair<uint64_t, uint64_t>> expected;
  for (auto [a, b] : Oracle(trace).races)
    if (vars.PlainConflict(a, b)) expected.insert({a, b});

  TraceModel m(trace);
  FeasibilityOptions f;
  f.prefix_reduction = false;
  FeasibilityChecker fc(m, f);
  SeqCheckStats stats;
  std::set<std::pair<uint64_t, uint64_t>> got;
  for (size_t i = 0; i < trace.size(); ++i)
    for (size_t j = i + 1; j < trace.size(); ++j) {
      if (!vars.PlainConflict(i, j)) continue;
      const uint32_t a = m.NodeOfIndex(trace[i].index), b = m.NodeOfIndex(trace[j].index);
      ASSERT_NE(a, kNone);
      ASSERT_NE(b, kNone);
      if (ConfirmRace(m, &fc, a, b, &stats).confirmed) got.insert({i, j});
    }
  ASSERT_EQ(stats.invalid_witnesses, 0u) << "seed " << seed;
  EXPECT_EQ(got, expected) << "seed " << seed;
  *total += expected.size();
  if (free_pairs != nullptr)
    for (auto [a, b] : expected) *free_pairs += trace[a].kind == EventKind::kFree || trace[b].kind == EventKind::kFree;
}

void CompareDeadlocks(const std::vector<Event>& trace, uint64_t seed, uint64_t* total, uint64_t* reduced) {
  const OracleResult oracle = Oracle(trace);
  TraceModel m(trace);
  DeadlockOptions d;
  d.feasibility.prefix_reduction = false;
  SeqCheckStats stats;
  std::set<test::DeadlockCycle> got;
  for (const Deadlock& x : PredictDeadlocks(m, d, &stats)) {
    ASSERT_TRUE(x.witness.validated);
    test::DeadlockCycle cycle;
    for (const DeadlockThread& t : x.cycle) cycle.push_back(t.blocked_acquire.index);
    std::sort(cycle.begin(), cycle.end());
    got.insert(cycle);
  }
  ASSERT_EQ(stats.invalid_witnesses, 0u) << "seed " << seed;
  EXPECT_EQ(got, oracle.deadlocks) << "seed " << seed;
  *total += oracle.deadlocks.size();
  // With prefix reduction (the default) SeqCheck may miss some; never more.
  const size_t fast = PredictDeadlocks(m, DeadlockOptions{}, &stats).size();
  EXPECT_LE(fast, got.size()) << "seed " << seed;
  *reduced += fast;
  ASSERT_EQ(stats.invalid_witnesses, 0u) << "seed " << seed;
}

TEST(SeqCheckTwoThreads, RacesMatchOracleOnTinyTraces) {
  uint64_t total = 0, traces = 0;
  for (uint64_t seed = 0; seed < 3000; ++seed) {
    std::vector<Event> trace = TinyTwoThreadTrace(seed);
    if (!TwoThreads(trace)) continue;
    ++traces;
    CompareRaces(trace, seed, &total);
  }
  EXPECT_GT(traces, 2500u);
  EXPECT_GT(total, 500u);  // the comparison was exercised
}

TEST(SeqCheckTwoThreads, RacesMatchOracleOnNestedTraces) {
  uint64_t total = 0;
  for (uint64_t seed = 0; seed < 2000; ++seed) {
    std::vector<Event> trace = NestedTwoThreadTrace(seed);
    if (TwoThreads(trace)) CompareRaces(trace, seed, &total);
  }
  EXPECT_GT(total, 500u);
}

// Byte ranges (overlapping at other start addresses, crossing words) and frees
// (writes of their block) with allocations (new variables): the oracle decides
// by bytes, SeqCheck by cells, and they must agree.
TEST(SeqCheckTwoThreads, RacesMatchOracleOnRangesAndFrees) {
  uint64_t total = 0, with_free = 0;
  for (uint64_t seed = 0; seed < 3000; ++seed) {
    test::RandomTraceOptions o = test::TinyTraceOptions(seed);
    o.threads = 2;
    o.frees = seed % 2 == 0 ? 0.25 : 0;
    std::vector<Event> trace = test::RandomTrace(o, seed);
    if (seed % 4 < 2) trace = test::WithRandomRanges(std::move(trace), seed);
    if (!TwoThreads(trace)) continue;
    CompareRaces(trace, seed, &total, &with_free);
  }
  EXPECT_GT(total, 500u);
  EXPECT_GT(with_free, 50u);  // races with a free: the frees were exercised
}

TEST(SeqCheckTwoThreads, DeadlocksMatchOracle) {
  uint64_t total = 0, reduced = 0;
  for (uint64_t seed = 0; seed < 8000; ++seed) {
    std::vector<Event> trace = seed % 4 == 3 ? TinyTwoThreadTrace(seed) : NestedTwoThreadTrace(seed);
    if (TwoThreads(trace)) CompareDeadlocks(trace, seed, &total, &reduced);
  }
  EXPECT_GT(total, 50u);
  std::printf("two-thread deadlocks: %llu by the oracle, %llu found with prefix reduction\n",
              static_cast<unsigned long long>(total), static_cast<unsigned long long>(reduced));
}

// The same with a third of the acquisitions trylocks or timed locks: the oracle
// never counts those as blocked, and SeqCheck must find exactly its deadlocks.
TEST(SeqCheckTwoThreads, DeadlocksWithTrylocksMatchOracle) {
  uint64_t total = 0, reduced = 0, nonblocking = 0, blocking_total = 0;
  for (uint64_t seed = 0; seed < 4000; ++seed) {
    std::vector<Event> trace = NestedTwoThreadTrace(seed, /*nonblocking=*/0.35);
    if (!TwoThreads(trace)) continue;
    for (const Event& e : trace) nonblocking += IsNonBlockingAcquire(e);
    CompareDeadlocks(trace, seed, &total, &reduced);
    // Every acquire made blocking: the oracle's count can only grow.
    for (Event& e : trace)
      if (e.kind == EventKind::kAcquire) e.aux = 0;
    blocking_total += Oracle(trace).deadlocks.size();
  }
  EXPECT_GT(nonblocking, 1000u);
  EXPECT_GT(total, 20u);
  EXPECT_GT(blocking_total, total);  // the trylocks did remove deadlocks
  std::printf(
      "two-thread deadlocks with trylocks: %llu by the oracle (%llu if all blocked), %llu found with "
      "prefix reduction\n",
      static_cast<unsigned long long>(total), static_cast<unsigned long long>(blocking_total),
      static_cast<unsigned long long>(reduced));
}

}  // namespace
}  // namespace seer::predictor::seqcheck
