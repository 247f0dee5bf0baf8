// The lock-order engine: a cycle in the order locks are taken, by any threads,
// one thread included (ThreadSanitizer's lock-order-inversion), without the
// cycles a gate lock or a trylock makes harmless; and every deadlock the
// deadlock engine predicts on random traces is also an inversion on its locks.
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "engine_support.h"
#include "tests/support/engine_runner.h"
#include "tests/support/random_trace.h"

namespace seer::predictor {
namespace {

using test::TraceBuilder;

std::vector<LockOrderInversion> Inversions(const TraceBuilder& b) {
  return test::RunEngine("lock-order", b.events()).lock_order;
}

// TSan's lock-order inversion test: one thread takes A then B, later B then A.
TEST(LockOrderTest, OneThreadTakingBothOrdersIsAnInversion) {
  TraceBuilder b;
  b.Acquire("T0", "A", 1).Acquire("T0", "B", 2).Release("T0", "B", 3).Release("T0", "A", 4);
  b.Acquire("T0", "B", 5).Acquire("T0", "A", 6).Release("T0", "A", 7).Release("T0", "B", 8);
  const auto inversions = Inversions(b);
  ASSERT_EQ(inversions.size(), 1u);
  const LockOrderInversion& inv = inversions[0];
  EXPECT_EQ(inv.engine, "lock-order");
  ASSERT_EQ(inv.cycle.size(), 2u);
  // Smallest lock first: A (held at pc 1) then B (taken at pc 2); B (held at 5) then A (at 6).
  EXPECT_EQ(inv.cycle[0].held_lock, b.Lock("A"));
  EXPECT_EQ(inv.cycle[0].held_acquire.pc, 1u);
  EXPECT_EQ(inv.cycle[0].wanted_lock, b.Lock("B"));
  EXPECT_EQ(inv.cycle[0].blocked_acquire.pc, 2u);
  EXPECT_EQ(inv.cycle[1].held_lock, b.Lock("B"));
  EXPECT_EQ(inv.cycle[1].held_acquire.pc, 5u);
  EXPECT_EQ(inv.cycle[1].blocked_acquire.pc, 6u);
  // The deadlock engine rightly finds no deadlock among this run's threads.
  EXPECT_TRUE(test::RunEngine("deadlock", b.events()).deadlocks.empty());
}

TEST(LockOrderTest, OneOrderEverywhereIsNone) {
  TraceBuilder b;
  b.Acquire("T0", "A", 1).Acquire("T0", "B", 2).Release("T0", "B", 3).Release("T0", "A", 4);
  b.Acquire("T1", "A", 5).Acquire("T1", "B", 6).Acquire("T1", "C", 7);
  b.Release("T1", "C", 8).Release("T1", "B", 9).Release("T1", "A", 10);
  b.Acquire("T0", "B", 11).Acquire("T0", "C", 12).Release("T0", "C", 13).Release("T0", "B", 14);
  EXPECT_TRUE(Inversions(b).empty());
}

TEST(LockOrderTest, ThreeLockCycleAcrossThreads) {
  TraceBuilder b;
  b.Acquire("T0", "A", 1).Acquire("T0", "B", 2).Release("T0", "B", 3).Release("T0", "A", 4);
  b.Acquire("T1", "B", 5).Acquire("T1", "C", 6).Release("T1", "C", 7).Release("T1", "B", 8);
  b.Acquire("T2", "C", 9).Acquire("T2", "A", 10).Release("T2", "A", 11).Release("T2", "C", 12);
  const auto inversions = Inversions(b);
  ASSERT_EQ(inversions.size(), 1u);
  EXPECT_EQ(inversions[0].cycle.size(), 3u);
}

// A gate lock held around every acquisition of the cycle: one thread at a time.
TEST(LockOrderTest, GateLockHeldAroundBothOrdersIsNone) {
  TraceBuilder b;
  b.Acquire("T0", "G", 1).Acquire("T0", "A", 2).Acquire("T0", "B", 3);
  b.Release("T0", "B", 4).Release("T0", "A", 5).Release("T0", "G", 6);
  b.Acquire("T1", "G", 7).Acquire("T1", "B", 8).Acquire("T1", "A", 9);
  b.Release("T1", "A", 10).Release("T1", "B", 11).Release("T1", "G", 12);
  EXPECT_TRUE(Inversions(b).empty());
  // Once without the gate, the order can bite.
  b.Acquire("T1", "B", 13).Acquire("T1", "A", 14).Release("T1", "A", 15).Release("T1", "B", 16);
  EXPECT_EQ(Inversions(b).size(), 1u);
}

// A trylock never waits: B then try-A orders nothing. Re-taking a held
// recursive lock orders nothing either.
TEST(LockOrderTest, TrylockAndRecursionOrderNothing) {
  TraceBuilder b;
  b.Acquire("T0", "A", 1).Acquire("T0", "B", 2).Release("T0", "B", 3).Release("T0", "A", 4);
  b.Acquire("T1", "B", 5).TryAcquire("T1", "A", 6).Release("T1", "A", 7).Release("T1", "B", 8);
  b.Acquire("T1", "A", 9).Acquire("T1", "A", 10).Release("T1", "A", 11).Release("T1", "A", 12);
  EXPECT_TRUE(Inversions(b).empty());
}

// Random traces: each deadlock the deadlock engine predicts (a cycle of
// threads each holding a lock and blocked on the next's) is an inversion on
// the same locks.
TEST(LockOrderTest, EveryPredictedDeadlockIsAnInversion) {
  int deadlocks = 0;
  for (uint64_t seed = 1; seed <= 300; ++seed) {
    const std::vector<Event> events = test::RandomTrace(test::LockCycleTraceOptions(), seed);
    const Findings d = test::RunEngine("deadlock", events);
    const Findings l = test::RunEngine("lock-order", events);
    std::set<std::set<uint64_t>> inverted;
    for (const LockOrderInversion& inv : l.lock_order) {
      std::set<uint64_t> locks;
      for (const DeadlockThread& t : inv.cycle) locks.insert(t.held_lock);
      inverted.insert(locks);
    }
    for (const Deadlock& dl : d.deadlocks) {
      ++deadlocks;
      std::set<uint64_t> locks;
      for (const DeadlockThread& t : dl.cycle) locks.insert(t.held_lock);
      EXPECT_TRUE(inverted.count(locks)) << "seed " << seed;
    }
  }
  EXPECT_GT(deadlocks, 10) << "the random traces should hold deadlocks to compare";
}

}  // namespace
}  // namespace seer::predictor
