// Lockset-W3 on the TR's worked examples (Sulzmann & Stadtmueller, MPLR 2020, full
// text), on each lowering rule, and the exact and linear variants on random traces.
#include <gtest/gtest.h>

#include "predictor/engines/w3/w3_engine.h"
#include "tests/oracle/paper_traces.h"
#include "tests/predictor/engines/w3/w3_support.h"
#include "tests/support/test_scale.h"

namespace seer::test {
namespace {

TEST(W3, RegisteredWithTheCompleteGuarantee) {
  ASSERT_NE(predictor::FindEngine("w3"), nullptr);
  ASSERT_NE(predictor::FindEngine("w3-linear"), nullptr);
  EXPECT_FALSE(predictor::FindEngine("w3")->in_default_set);
  EXPECT_TRUE(predictor::FindEngine("w3-linear")->in_default_set);
  auto f = RunEngine("w3-linear", {});
  ASSERT_EQ(f.races.size(), 1u);
  EXPECT_EQ(f.races[0].engine, "w3-linear");
  EXPECT_EQ(f.races[0].guarantee, predictor::Guarantee::kComplete);
}

// TR Example 2.1, trace A: HB orders the two writes through the critical sections;
// swapping the sections exposes the race.
TEST(W3, ReorderedCriticalSectionsRace) {
  auto p = MakePaperTrace({"T1|w(x)", "T1|acq(y)", "T1|rel(y)", "T2|acq(y)", "T2|w(x)", "T2|rel(y)"});
  EXPECT_EQ(W3Pairs(p.events()), (Pairs{{1, 5}}));
}

// TR Example 2.1, trace B: w(x)2 < w(y)3 < r(y)4 < w(x)5 by the write-read
// dependency, so the writes on x do not race; the accesses of y do.
TEST(W3, WriteReadDependencyOrders) {
  auto p = MakePaperTrace({"T2|w(y)", "T1|w(x)", "T1|w(y)", "T2|r(y)", "T2|w(x)"});
  EXPECT_EQ(W3Pairs(p.events()), (Pairs{{1, 3}, {3, 4}}));
}

// TR §4.1: w(x)3 and w(x)6 share lock y, but w(x)1, replaced in RW(x) by w(x)3,
// races with w(x)6: found only through the edge w1 ≺ w3.
TEST(W3, EdgesRecoverReplacedAccesses) {
  auto p = MakePaperTrace({"T1|w(x)", "T1|acq(y)", "T1|w(x)", "T1|rel(y)", "T2|acq(y)", "T2|w(x)", "T2|rel(y)"});
  EXPECT_EQ(W3Pairs(p.events()), (Pairs{{1, 6}}));
}

// TR Example 4.6: the second pass proposes (w1, w7), which the filter drops
// because w1 < w7 through y1 and y2. The write-read pairs on y1 and y2 race.
TEST(W3, SecondPassFiltersOrderedCandidates) {
  auto p = MakePaperTrace({"T1|w(x)", "T1|w(y1)", "T2|r(y1)", "T2|w(y2)", "T2|w(x)", "T3|r(y2)", "T3|w(x)"});
  EXPECT_EQ(W3Pairs(p.events()), (Pairs{{2, 3}, {4, 6}, {5, 7}}));
}

// TR Example C.1: four predictable races, two of them only through the edge w1 ≺ w2.
TEST(W3, AllFourRacesOfExampleC1) {
  auto p = MakePaperTrace({"T1|w(x)", "T1|w(x)", "T2|w(x)", "T2|r(x)"});
  EXPECT_EQ(W3Pairs(p.events()), (Pairs{{1, 3}, {2, 3}, {1, 4}, {2, 4}}));
}

// TR Example A.9: r(x)7 reads w(x)3 inside the other section on z, so the release
// order puts rel(z)4 before r(x)7; w(y)1 and w(y)6 still race.
TEST(W3, ReleaseOrderDependency) {
  auto p =
      MakePaperTrace({"T1|w(y)", "T1|acq(z)", "T1|w(x)", "T1|rel(z)", "T2|acq(z)", "T2|w(y)", "T2|r(x)", "T2|rel(z)"});
  EXPECT_EQ(W3Pairs(p.events()), (Pairs{{1, 6}}));
  // With the sections' accesses the other way round, ROD orders everything.
  auto q =
      MakePaperTrace({"T1|acq(z)", "T1|w(x)", "T1|rel(z)", "T1|w(y)", "T2|acq(z)", "T2|r(x)", "T2|rel(z)", "T2|w(y)"});
  EXPECT_EQ(W3Pairs(q.events()), (Pairs{{4, 8}}));
}

// TR Example 3.9: the known false positive (w(x)4, w(x)11) beside the real
// write-read races on z1..z4.
TEST(W3, KnownFalsePositiveOfExample39) {
  auto p = MakePaperTrace({"T1|acq(y)", "T1|w(z1)", "T2|r(z1)", "T2|w(x)", "T2|w(z2)", "T1|r(z2)", "T1|rel(y)",
                           "T3|acq(y)", "T3|w(z3)", "T4|r(z3)", "T4|w(x)", "T4|w(z4)", "T3|r(z4)", "T3|rel(y)"});
  EXPECT_EQ(W3Pairs(p.events()), (Pairs{{2, 3}, {5, 6}, {9, 10}, {12, 13}, {4, 11}}));
}

TEST(W3, WcpFiguresAndLockedAccesses) {
  EXPECT_TRUE(W3Pairs(WcpFigure1a().events()).empty());
  EXPECT_EQ(W3Pairs(WcpFigure1b().events()), (Pairs{{1, 8}}));
}

TEST(W3, CountsRacyEventsLocationsAndPairs) {
  auto p = MakePaperTrace({"T1|w(x)", "T1|w(x)", "T2|w(x)", "T2|r(x)"});
  auto f = RunEngine("w3", p.events());
  ASSERT_EQ(f.races.size(), 1u);
  EXPECT_EQ(f.races[0].pairs.size(), 4u);
  EXPECT_EQ(f.races[0].racy_events, 2u);  // the later access of each pair: lines 3 and 4
  EXPECT_EQ(f.races[0].racy_locations, 2u);
}

// The lockset after a release: the one before the matching acquire when locks
// are released in reverse order, recomputed when an earlier lock went first.
TEST(W3, LocksetsAfterReleasesInAnyOrder) {
  auto out_of_order = MakePaperTrace(
      {"T1|acq(a)", "T1|acq(b)", "T1|rel(a)", "T1|rel(b)", "T1|w(x)", "T2|acq(a)", "T2|w(x)", "T2|rel(a)"});
  EXPECT_EQ(W3Pairs(out_of_order.events()), (Pairs{{5, 7}}));
  auto nested = MakePaperTrace(
      {"T1|acq(a)", "T1|acq(b)", "T1|rel(b)", "T1|w(x)", "T1|rel(a)", "T2|acq(a)", "T2|w(x)", "T2|rel(a)", "T1|w(x)"});
  EXPECT_EQ(W3Pairs(nested.events()), (Pairs{{7, 9}}));
}

TEST(W3, SharedSectionsDoNotProtect) {
  TraceBuilder b;
  b.Acquire("T1", "l", 1, LockMode::kShared).Write("T1", "x", 2).Release("T1", "l", 3, LockMode::kShared);
  b.Acquire("T2", "l", 4, LockMode::kShared).Write("T2", "x", 5).Release("T2", "l", 6, LockMode::kShared);
  EXPECT_EQ(W3Pairs(b.events()), (Pairs{{2, 5}}));
  TraceBuilder c;  // one exclusive section: protected
  c.Acquire("T1", "l", 1).Write("T1", "x", 2).Release("T1", "l", 3);
  c.Acquire("T2", "l", 4, LockMode::kShared).Write("T2", "x", 5).Release("T2", "l", 6, LockMode::kShared);
  EXPECT_TRUE(W3Pairs(c.events()).empty());
}

TEST(W3, AtomicsRaceOnlyWithPlainAccesses) {
  TraceBuilder b;
  const uint64_t x = b.Variable("x");
  // Two stores: an atomic read-modify-write here would read T1's store, and that
  // dependency would order the plain write after it (AtomicReadModifyWriteReads).
  b.Add("T1", EventKind::kAtomicStore, x, 1, 4).Add("T2", EventKind::kAtomicStore, x, 2, 4);
  EXPECT_TRUE(W3Pairs(b.events()).empty());
  b.Add("T2", EventKind::kWrite, x, 3, 4);
  EXPECT_EQ(W3Pairs(b.events()), (Pairs{{1, 3}}));
}

// A test-and-set lock: T2's read-modify-write reads the flag T1's store cleared, and
// that write-read dependency orders T1's section before T2's (race suite program
// norace_atomic_flag_spin.cc).
TEST(W3, AtomicReadModifyWriteReads) {
  TraceBuilder b;
  const uint64_t flag = b.Variable("flag");
  b.Add("T1", EventKind::kAtomicRmw, flag, 1, 1).Write("T1", "x", 2).Add("T1", EventKind::kAtomicStore, flag, 3, 1);
  b.Add("T2", EventKind::kAtomicRmw, flag, 1, 1).Write("T2", "x", 2).Add("T2", EventKind::kAtomicStore, flag, 3, 1);
  EXPECT_TRUE(W3Pairs(b.events()).empty());
}

TEST(W3, ForkJoinSignalAndFreeOrder) {
  auto p = MakePaperTrace({"T1|w(x)", "T1|fork(T2)", "T2|w(x)", "T1|join(T2)", "T1|w(x)"});
  EXPECT_TRUE(W3Pairs(p.events()).empty());
  TraceBuilder s;
  s.Write("T1", "x", 1).Add("T1", EventKind::kSignal, 9, 2).Add("T2", EventKind::kWait, 9, 3).Write("T2", "x", 4);
  EXPECT_TRUE(W3Pairs(s.events()).empty());
  TraceBuilder f;  // free and re-allocation: a new variable at the same address
  f.Add("T1", EventKind::kWrite, 64, 1, 8).Add("T1", EventKind::kFree, 64, 2, 8);
  f.Add("T2", EventKind::kAlloc, 64, 3, 8).Add("T2", EventKind::kWrite, 64, 4, 8);
  EXPECT_TRUE(W3Pairs(f.events()).empty());
}

// TR §4.5: 27 writes of one thread, then one of another. Each of the 27 races
// with the last write; w3-linear, keeping 25 edges (w2 ≺ w3 ... w26 ≺ w27), misses w1.
TEST(W3, LinearVariantMissesRacesBeyondItsEdgeBound) {
  TraceBuilder b;
  for (uint64_t i = 1; i <= 27; ++i) b.Write("T1", "x", i);
  b.Write("T2", "x", 28);
  EXPECT_EQ(RacePcPairs(RunEngine("w3", b.events())).size(), 27u);
  predictor::AnalysisOptions o;
  o.w3_edges = 25;
  Pairs linear = RacePcPairs(RunEngine("w3-linear", b.events(), o));
  EXPECT_EQ(linear.size(), 26u);
  EXPECT_FALSE(linear.count({1, 28}));
  o.w3_edges = 100;
  EXPECT_EQ(RacePcPairs(RunEngine("w3-linear", b.events(), o)).size(), 27u);
}

// A bounded lock history forgets orderings: more pairs, never fewer.
TEST(W3, BoundedHistoryOnlyAddsPairs) {
  for (uint64_t seed = 0; seed < 500; ++seed) {
    RandomTraceOptions r;
    r.threads = 3;
    r.events = 60;
    r.locks = 2;
    r.variables = 3;
    auto trace = RandomTrace(r, seed);
    predictor::AnalysisOptions o;
    o.w3_edges = 10'000;
    Pairs full = RacePcPairs(RunEngine("w3-linear", trace, o));
    o.w3_history = 1;
    Pairs bounded = RacePcPairs(RunEngine("w3-linear", trace, o));
    for (const auto& p : full) ASSERT_TRUE(bounded.count(p)) << "seed " << seed;
  }
}

// The exact and the linear variant agree on every trace within the bounds.
TEST(W3, ExactAndLinearAgreeOnRandomTraces) {
  uint64_t with_races = 0;
  for (uint64_t seed = 0; seed < uint64_t(Iterations(10'000)); ++seed) {
    bool racy;
    ASSERT_EQ(ExactLinearDifference(RandomTrace(AgreementTraceOptions(seed), seed), &racy), "") << "seed " << seed;
    with_races += racy;
  }
  EXPECT_GT(with_races, AtLeast(1000)) << "the random traces hardly race: the agreement proves little";
}

// The readers' places in the lock histories are a speed-up within a budget
// (64 MB by default, which these small traces never reach): with no budget,
// and with one that runs out part way (rows shorter than the writers), every
// search starts afresh, and the reports must not change.
TEST(W3, PositionCacheBudgetDoesNotChangeReports) {
  uint64_t with_races = 0;
  for (uint64_t seed = 0; seed < uint64_t(Iterations(3'000)); ++seed) {
    RandomTraceOptions r = AgreementTraceOptions(seed);
    r.threads = 2 + seed % 7;
    r.events = 20 + seed % 80;
    const std::vector<Event> trace = RandomTrace(r, seed);
    for (const char* engine : {"w3", "w3-linear"}) {
      predictor::AnalysisOptions o;
      const predictor::Findings by_default = RunEngine(engine, trace, o);
      for (const uint64_t budget : {uint64_t{0}, uint64_t{48}}) {
        o.w3_position_cache_bytes = budget;
        const predictor::Findings limited = RunEngine(engine, trace, o);
        ASSERT_EQ(RacePcPairs(limited), RacePcPairs(by_default)) << engine << " seed " << seed << " budget " << budget;
        ASSERT_EQ(limited.races[0].racy_events, by_default.races[0].racy_events)
            << engine << " seed " << seed << " budget " << budget;
      }
      with_races += !by_default.races[0].pairs.empty();
    }
  }
  EXPECT_GT(with_races, 1000u) << "the random traces hardly race: the comparison proves little";
}

}  // namespace
}  // namespace seer::test
