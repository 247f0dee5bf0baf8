// The oracle against hand-checked verdicts: the papers' figures and small cases
// for each lowering rule (atomics, fork/join, signals, rwlocks, read rules).
#include "tests/oracle/oracle.h"

#include <gtest/gtest.h>

#include <chrono>

#include "tests/oracle/paper_traces.h"
#include "tests/support/random_trace.h"

namespace seer::test {
namespace {

using Pairs = std::set<std::pair<uint64_t, uint64_t>>;

TEST(Oracle, WcpFigure1aHasNoRace) {
  auto p = WcpFigure1a();
  auto r = RunOracle(p.events());
  EXPECT_TRUE(r.races.empty());
  EXPECT_TRUE(r.deadlocks.empty());
  EXPECT_FALSE(r.truncated);
}

TEST(Oracle, WcpFigure1bRacesOnY) {
  auto p = WcpFigure1b();
  auto r = RunOracle(p.events());
  EXPECT_EQ(r.races, (Pairs{{p.line[1], p.line[8]}}));
  EXPECT_EQ(r.adjacent_races, r.races);
  EXPECT_EQ(r.race_pcs, (Pairs{{1, 8}}));
}

TEST(Oracle, WcpFigure5HasADeadlockAndNoRace) {
  auto p = WcpFigure5();
  auto r = RunOracle(p.events());
  EXPECT_TRUE(r.races.empty()) << "first race: " << r.races.begin()->first << "," << r.races.begin()->second;
  std::set<DeadlockCycle> expected{{p.line[2], p.line[7], p.line[11]}};
  EXPECT_EQ(r.deadlocks, expected);
}

TEST(Oracle, SeqCheckFigure1RacesOnlyWhenReadsNeedNoBranch) {
  auto p = SeqCheckFigure1();
  OracleOptions branches;
  branches.read_rule = ReadRule::kExplicitBranches;  // the figure's code has no branch
  auto r = RunOracle(p.events(), branches);
  EXPECT_TRUE(r.races.count({p.line[2], p.line[9]}));
  // With every read followed by a branch (the model of HB, WCP, W3), e6 must see
  // e3, which needs e2 first: no race, as M2 says.
  auto strict = RunOracle(p.events());
  EXPECT_FALSE(strict.races.count({p.line[2], p.line[9]}));
  // A branch after the read of x in T1 restores the strict verdict.
  auto q = MakePaperTrace({"T2|acq(l)", "T2|r(y)", "T2|w(x)", "T2|rel(l)", "T1|acq(l)", "T1|r(x)", "T1|branch",
                           "T1|w(x)", "T1|rel(l)", "T1|w(y)"});
  auto with_branch = RunOracle(q.events());
  EXPECT_FALSE(with_branch.races.count({q.line[2], q.line[10]}));
}

// T1: w(x) w(x); T2: r(x) reading the second write. Both of T1's writes can be
// enabled with the read, but only the second can run right before it.
TEST(Oracle, EnabledIsWeakerThanAdjacent) {
  auto p = MakePaperTrace({"T1|w(x)", "T1|w(x)", "T2|r(x)"});
  auto r = RunOracle(p.events());
  EXPECT_EQ(r.races, (Pairs{{0, 2}, {1, 2}}));
  EXPECT_EQ(r.adjacent_races, (Pairs{{1, 2}}));
}

TEST(Oracle, LockInversionIsADeadlock) {
  auto p = MakePaperTrace(
      {"T1|acq(a)", "T1|acq(b)", "T1|rel(b)", "T1|rel(a)", "T2|acq(b)", "T2|acq(a)", "T2|rel(a)", "T2|rel(b)"});
  auto r = RunOracle(p.events());
  EXPECT_EQ(r.deadlocks, (std::set<DeadlockCycle>{{1, 5}}));
  // A gate lock around both nestings removes it.
  auto g = MakePaperTrace({"T1|acq(g)", "T1|acq(a)", "T1|acq(b)", "T1|rel(b)", "T1|rel(a)", "T1|rel(g)", "T2|acq(g)",
                           "T2|acq(b)", "T2|acq(a)", "T2|rel(a)", "T2|rel(b)", "T2|rel(g)"});
  EXPECT_TRUE(RunOracle(g.events()).deadlocks.empty());
}

TEST(Oracle, TrylockNeverBlocks) {
  // The inversion with T1's inner acquisition a trylock (or timed lock): in the
  // state where T2 holds b, T1's next step would fail, not block.
  for (const char* how : {"how=try", "how=timed"}) {
    auto p = MakePaperTrace({"T1|acq(a)", std::string("T1|acq(b ") + how + ")", "T1|rel(b)", "T1|rel(a)", "T2|acq(b)",
                             "T2|acq(a)", "T2|rel(a)", "T2|rel(b)"});
    EXPECT_TRUE(RunOracle(p.events()).deadlocks.empty()) << how;
  }
  // A lock got by trylock is held: both requests block, a deadlock.
  auto held = MakePaperTrace(
      {"T1|acq(a how=try)", "T1|acq(b)", "T1|rel(b)", "T1|rel(a)", "T2|acq(b)", "T2|acq(a)", "T2|rel(a)", "T2|rel(b)"});
  EXPECT_EQ(RunOracle(held.events()).deadlocks, (std::set<DeadlockCycle>{{1, 5}}));
}

TEST(Oracle, ForkAndJoinOrder) {
  auto p = MakePaperTrace({"T1|w(x)", "T1|fork(T2)", "T2|w(x)", "T1|join(T2)", "T1|w(x)"});
  EXPECT_TRUE(RunOracle(p.events()).races.empty());
  auto q = MakePaperTrace({"T1|fork(T2)", "T1|w(x)", "T2|w(x)", "T1|join(T2)"});
  EXPECT_EQ(RunOracle(q.events()).races, (Pairs{{1, 2}}));
}

TEST(Oracle, AtomicsSynchroniseButRaceWithPlainAccesses) {
  TraceBuilder b;
  const uint64_t x = b.Variable("x");
  b.Add("T1", EventKind::kAtomicStore, x, 1, 1).Add("T2", EventKind::kAtomicLoad, x, 2, 1);
  EXPECT_TRUE(RunOracle(b.events()).races.empty());
  TraceBuilder c;  // a plain write is no sync(x): it races with the atomic store
  c.Add("T1", EventKind::kAtomicStore, x, 1, 1).Add("T2", EventKind::kWrite, x, 2, 1);
  EXPECT_EQ(RunOracle(c.events()).races, (Pairs{{0, 1}}));
}

TEST(Oracle, SignalOrdersWait) {
  TraceBuilder b;
  b.Write("T1", "x", 1).Add("T1", EventKind::kSignal, 7, 2).Add("T2", EventKind::kWait, 7, 3).Write("T2", "x", 4);
  EXPECT_TRUE(RunOracle(b.events()).races.empty());
}

TEST(Oracle, SharedSectionsDoNotExclude) {
  TraceBuilder b;
  b.Acquire("T1", "l", 1, LockMode::kShared).Write("T1", "x", 2).Release("T1", "l", 3, LockMode::kShared);
  b.Acquire("T2", "l", 4, LockMode::kShared).Write("T2", "x", 5).Release("T2", "l", 6, LockMode::kShared);
  EXPECT_EQ(RunOracle(b.events()).races, (Pairs{{1, 4}}));
}

TEST(Oracle, OverlappingBytesConflictAndFreeStartsAFreshVariable) {
  TraceBuilder b;
  b.Add("T1", EventKind::kWrite, 100, 1, 4).Add("T2", EventKind::kRead, 102, 2, 1);
  EXPECT_EQ(RunOracle(b.events()).races, (Pairs{{0, 1}}));
  TraceBuilder c;
  c.Add("T1", EventKind::kWrite, 100, 1, 4).Add("T2", EventKind::kRead, 104, 2, 4);
  EXPECT_TRUE(RunOracle(c.events()).races.empty());
  TraceBuilder d;  // write, free, re-allocate, write: different variables
  d.Add("T1", EventKind::kWrite, 100, 1, 4).Add("T1", EventKind::kFree, 100, 2, 4);
  d.Add("T2", EventKind::kAlloc, 100, 3, 4).Add("T2", EventKind::kWrite, 100, 4, 4);
  EXPECT_TRUE(RunOracle(d.events()).races.empty());
}

// Tiny random traces must stay cheap: the property tests run thousands of them.
TEST(Oracle, FourteenEventTracesTakeMilliseconds) {
  RandomTraceOptions o;
  o.threads = 3;
  o.events = 14;
  o.variables = 2;
  o.locks = 2;
  auto start = std::chrono::steady_clock::now();
  uint64_t states = 0;
  for (uint64_t seed = 0; seed < 200; ++seed) {
    auto r = RunOracle(RandomTrace(o, seed));
    ASSERT_FALSE(r.truncated);
    states += r.states;
  }
  const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  EXPECT_LT(ms / 200, 20.0) << "states per trace: " << states / 200;
}

}  // namespace
}  // namespace seer::test
