// Deadlock prediction on STD-like traces: each expected verdict asserted, each
// reported deadlock's witness re-checked by the independent checker.
#include <gtest/gtest.h>

#include <set>

#include "predictor/engine.h"
#include "predictor/seqcheck/deadlocks.h"
#include "predictor/seqcheck/witness_checker.h"
#include "tests/support/trace_builder.h"

namespace seer::predictor::seqcheck {
namespace {

using test::TraceBuilder;

std::vector<Deadlock> Predict(const std::vector<Event>& trace, SeqCheckStats* stats = nullptr,
                              bool prefix_reduction = true) {
  SeqCheckStats local;
  if (!stats) stats = &local;
  TraceModel m(trace);
  DeadlockOptions o;
  o.feasibility.prefix_reduction = prefix_reduction;
  std::vector<Deadlock> found = PredictDeadlocks(m, o, stats);
  EXPECT_EQ(stats->invalid_witnesses, 0u);
  WitnessChecker checker(trace);
  for (const Deadlock& d : found) {
    EXPECT_TRUE(d.witness.validated);
    EXPECT_EQ(d.guarantee, Guarantee::kWitnessed);
    Status s = checker.CheckDeadlock(d);
    EXPECT_TRUE(s.ok()) << s.ToString();
  }
  return found;
}

std::vector<Event> Std(const std::vector<std::string>& lines) { return TraceBuilder().Std(lines).events(); }

TEST(Deadlock, TwoThreadAbba) {
  auto trace = Std({"T1|acq(a)|1", "T1|acq(b)|2", "T1|rel(b)|3", "T1|rel(a)|4", "T2|acq(b)|5", "T2|acq(a)|6",
                    "T2|rel(a)|7", "T2|rel(b)|8"});
  for (bool reduce : {true, false}) {
    auto found = Predict(trace, nullptr, reduce);
    ASSERT_EQ(found.size(), 1u);
    ASSERT_EQ(found[0].cycle.size(), 2u);
    for (const DeadlockThread& t : found[0].cycle) {
      EXPECT_EQ(t.held_acquire.kind, EventKind::kAcquire);
      EXPECT_NE(t.held_lock, t.wanted_lock);
    }
    // T1 holds a (event 0) and is blocked at event 1; T2 holds b (4), blocked at 5.
    std::set<std::pair<uint64_t, uint64_t>> got;
    for (const DeadlockThread& t : found[0].cycle) got.insert({t.held_acquire.index, t.blocked_acquire.index});
    EXPECT_EQ(got, (std::set<std::pair<uint64_t, uint64_t>>{{0, 1}, {4, 5}}));
  }
}

TEST(Deadlock, ThreeThreadCycle) {
  auto found =
      Predict(Std({"T1|acq(a)|1", "T1|acq(b)|2", "T1|rel(b)|3", "T1|rel(a)|4", "T2|acq(b)|5", "T2|acq(c)|6",
                   "T2|rel(c)|7", "T2|rel(b)|8", "T3|acq(c)|9", "T3|acq(a)|10", "T3|rel(a)|11", "T3|rel(c)|12"}));
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].cycle.size(), 3u);
}

TEST(Deadlock, FiveDiningPhilosophers) {
  std::vector<std::string> lines;
  for (int i = 0; i < 5; ++i) {
    const std::string t = "P" + std::to_string(i), left = "f" + std::to_string(i),
                      right = "f" + std::to_string((i + 1) % 5);
    const int pc = 10 * i;
    lines.push_back(t + "|acq(" + left + ")|" + std::to_string(pc + 1));
    lines.push_back(t + "|acq(" + right + ")|" + std::to_string(pc + 2));
    lines.push_back(t + "|w(plate)|" + std::to_string(pc + 3));
    lines.push_back(t + "|rel(" + right + ")|" + std::to_string(pc + 4));
    lines.push_back(t + "|rel(" + left + ")|" + std::to_string(pc + 5));
  }
  auto found = Predict(Std(lines));
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].cycle.size(), 5u);
}

TEST(Deadlock, GateLockPreventsIt) {
  SeqCheckStats stats;
  auto found =
      Predict(Std({"T1|acq(g)|1", "T1|acq(a)|2", "T1|acq(b)|3", "T1|rel(b)|4", "T1|rel(a)|5", "T1|rel(g)|6",
                   "T2|acq(g)|7", "T2|acq(b)|8", "T2|acq(a)|9", "T2|rel(a)|10", "T2|rel(b)|11", "T2|rel(g)|12"}),
              &stats);
  EXPECT_TRUE(found.empty());
  EXPECT_GT(stats.filtered, 0u);  // the gate filter, not SeqCheck, rejected it
}

TEST(Deadlock, ThreadsJoinedOneAfterAnotherCannotDeadlock) {
  SeqCheckStats stats;
  auto found =
      Predict(Std({"M|fork(T1)|1", "T1|acq(a)|2", "T1|acq(b)|3", "T1|rel(b)|4", "T1|rel(a)|5", "M|join(T1)|6",
                   "M|fork(T2)|7", "T2|acq(b)|8", "T2|acq(a)|9", "T2|rel(a)|10", "T2|rel(b)|11", "M|join(T2)|12"}),
              &stats);
  EXPECT_TRUE(found.empty());
  EXPECT_GT(stats.filtered, 0u);
}

TEST(Deadlock, ObservedWriteOrdersTheThreads) {
  // T2 reads the flag T1 writes after its nested section: T2's sections cannot
  // start before T1's end, which no lock-graph filter sees; SeqCheck does.
  SeqCheckStats stats;
  auto found = Predict(Std({"T1|acq(a)|1", "T1|acq(b)|2", "T1|rel(b)|3", "T1|rel(a)|4", "T1|w(flag)|5", "T2|r(flag)|6",
                            "T2|acq(b)|7", "T2|acq(a)|8", "T2|rel(a)|9", "T2|rel(b)|10"}),
                       &stats);
  EXPECT_TRUE(found.empty());
  EXPECT_GT(stats.checks, 0u);
}

TEST(Deadlock, RecursiveMutexTakenTwiceIsReportedOnce) {
  auto found = Predict(Std({"T1|acq(a)|1", "T1|acq(a)|2", "T1|acq(b)|3", "T1|rel(b)|4", "T1|rel(a)|5", "T1|rel(a)|6",
                            "T2|acq(b)|7", "T2|acq(a)|8", "T2|rel(a)|9", "T2|rel(b)|10"}));
  ASSERT_EQ(found.size(), 1u);
  for (const DeadlockThread& t : found[0].cycle)
    if (t.tid == found[0].cycle[0].tid && t.held_lock == t.wanted_lock) ADD_FAILURE() << "self edge";
  // T1 holds a through its outermost acquisition (event 0).
  bool outer = false;
  for (const DeadlockThread& t : found[0].cycle) outer = outer || t.held_acquire.index == 0;
  EXPECT_TRUE(outer);
}

TEST(Deadlock, ReadLocksOnlyCannotDeadlock) {
  TraceBuilder b;
  b.Acquire("T1", "a", 1, LockMode::kShared).Acquire("T1", "b", 2, LockMode::kShared);
  b.Release("T1", "b", 3, LockMode::kShared).Release("T1", "a", 4, LockMode::kShared);
  b.Acquire("T2", "b", 5, LockMode::kShared).Acquire("T2", "a", 6, LockMode::kShared);
  b.Release("T2", "a", 7, LockMode::kShared).Release("T2", "b", 8, LockMode::kShared);
  EXPECT_TRUE(Predict(b.events()).empty());
}

TEST(Deadlock, ReadHeldWriteWantedDoesDeadlock) {
  TraceBuilder b;
  b.Acquire("T1", "a", 1, LockMode::kShared).Acquire("T1", "b", 2);
  b.Release("T1", "b", 3).Release("T1", "a", 4, LockMode::kShared);
  b.Acquire("T2", "b", 5, LockMode::kShared).Acquire("T2", "a", 6);
  b.Release("T2", "a", 7).Release("T2", "b", 8, LockMode::kShared);
  EXPECT_EQ(Predict(b.events()).size(), 1u);
}

// The back-off server: T1 holds a and only tries b; T2 takes b then a,
// blocking. T1 never waits for b, so no schedule deadlocks. The same trace with
// a blocking request in T1 (the twin) does.
TEST(Deadlock, CycleClosedOnlyThroughATrylockIsNotReported) {
  for (const char* how : {" how=try", " how=timed", ""}) {
    SCOPED_TRACE(std::string("T1's request:") + how);
    auto trace = Std({"T1|acq(a)|1", std::string("T1|acq(b") + how + ")|2", "T1|rel(b)|3", "T1|rel(a)|4", "T2|acq(b)|5",
                      "T2|acq(a)|6", "T2|rel(a)|7", "T2|rel(b)|8"});
    SeqCheckStats stats;
    auto found = Predict(trace, &stats);
    if (std::string(how).empty()) {
      ASSERT_EQ(found.size(), 1u);
      EXPECT_EQ(stats.candidates, 1u);
    } else {
      EXPECT_TRUE(found.empty());
      EXPECT_EQ(stats.candidates, 0u);  // no lock-graph cycle at all: b is no request of T1
    }
  }
}

TEST(Deadlock, TrylocksOnBothSidesCannotDeadlock) {
  EXPECT_TRUE(Predict(Std({"T1|acq(a)|1", "T1|acq(b how=try)|2", "T1|rel(b)|3", "T1|rel(a)|4", "T2|acq(b)|5",
                           "T2|acq(a how=timed)|6", "T2|rel(a)|7", "T2|rel(b)|8"}))
                  .empty());
  // Read-mode tries too.
  TraceBuilder b;
  b.Acquire("T1", "a", 1).TryAcquire("T1", "b", 2, AcquireHow::kTry, LockMode::kShared);
  b.Release("T1", "b", 3, LockMode::kShared).Release("T1", "a", 4);
  b.Acquire("T2", "b", 5).Acquire("T2", "a", 6);
  b.Release("T2", "a", 7).Release("T2", "b", 8);
  EXPECT_TRUE(Predict(b.events()).empty());
}

// A lock got by trylock is held like any other: T1 tried a, got it, and blocks
// on b while T2 holds b and blocks on a. Each thread's request blocks: reported,
// with the trylock as T1's held acquisition.
TEST(Deadlock, TrylockHeldWithBlockingRequestsIsReported) {
  auto trace = Std({"T1|acq(a how=try)|1", "T1|acq(b)|2", "T1|rel(b)|3", "T1|rel(a)|4", "T2|acq(b)|5", "T2|acq(a)|6",
                    "T2|rel(a)|7", "T2|rel(b)|8"});
  auto found = Predict(trace);
  ASSERT_EQ(found.size(), 1u);
  std::set<std::pair<uint64_t, uint64_t>> got;
  for (const DeadlockThread& t : found[0].cycle) got.insert({t.held_acquire.index, t.blocked_acquire.index});
  EXPECT_EQ(got, (std::set<std::pair<uint64_t, uint64_t>>{{0, 1}, {4, 5}}));
}

// Three threads a -> b -> c -> a where the a -> b step is taken by two threads:
// T1 by trylock (no request), T4 blocking. The cycle through T4 is reported;
// none names T1's trylock as a blocked request.
TEST(Deadlock, MixedCycleIsReportedThroughItsBlockingInstance) {
  auto trace = Std({"T1|acq(a)|1", "T1|acq(b how=try)|2", "T1|rel(b)|3", "T1|rel(a)|4", "T2|acq(b)|5", "T2|acq(c)|6",
                    "T2|rel(c)|7", "T2|rel(b)|8", "T3|acq(c)|9", "T3|acq(a)|10", "T3|rel(a)|11", "T3|rel(c)|12",
                    "T4|acq(a)|13", "T4|acq(b)|14", "T4|rel(b)|15", "T4|rel(a)|16"});
  auto found = Predict(trace);
  ASSERT_EQ(found.size(), 1u);
  ASSERT_EQ(found[0].cycle.size(), 3u);
  std::set<uint64_t> blocked;
  for (const DeadlockThread& t : found[0].cycle) blocked.insert(t.blocked_acquire.index);
  EXPECT_EQ(blocked, (std::set<uint64_t>{5, 9, 13}));
  // Without T4 only the trylock closes the cycle: nothing.
  trace.resize(12);
  EXPECT_TRUE(Predict(trace).empty());
}

TEST(Deadlock, EngineReportsThroughTheRegistry) {
  const EngineSpec* spec = FindEngine("deadlock");
  ASSERT_NE(spec, nullptr);
  EXPECT_TRUE(spec->in_default_set);
  auto engine = spec->create(AnalysisOptions{});
  TraceBuilder b;
  b.Std({"T1|acq(a)|1", "T1|acq(b)|2", "T1|rel(b)|3", "T1|rel(a)|4", "T2|acq(b)|5", "T2|acq(a)|6", "T2|rel(a)|7",
         "T2|rel(b)|8"});
  ASSERT_TRUE(engine->Begin(b.Info()).ok());
  engine->Process(b.events().data(), 3);
  engine->Process(b.events().data() + 3, b.events().size() - 3);
  Findings f;
  ASSERT_TRUE(engine->Finish(&f).ok());
  ASSERT_EQ(f.deadlocks.size(), 1u);
  EXPECT_TRUE(f.deadlocks[0].witness.validated);
  EXPECT_EQ(f.deadlocks[0].engine, "deadlock");
}

}  // namespace
}  // namespace seer::predictor::seqcheck
