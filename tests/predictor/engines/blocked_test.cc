// The blocked engine: a deadlock that happened (threads left waiting, at the
// end of the trace, for locks the others hold), from the kLockRequest events
// the runtime records before a blocking acquire of a busy lock; and, on random
// traces, every deadlock the deadlock engine predicts, run to its witness and
// stopped there, is one that happened.
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

std::vector<Deadlock> Blocked(const std::vector<Event>& events) { return test::RunEngine("blocked", events).deadlocks; }

TraceBuilder& Request(TraceBuilder& b, const std::string& thread, const std::string& lock, uint64_t pc,
                      LockMode mode = LockMode::kExclusive) {
  return b.Add(thread, EventKind::kLockRequest, b.Lock(lock), pc, 0, static_cast<uint8_t>(mode));
}

// The deadlock of TSan's and Helgrind's tests, which happened: each thread
// holds one lock and waits for the other's when the run is killed.
TEST(BlockedTest, TwoThreadsWaitingForEachOthersLock) {
  TraceBuilder b;
  b.Acquire("T1", "A", 1).Acquire("T2", "B", 2);
  Request(b, "T1", "B", 3);
  Request(b, "T2", "A", 4);
  const auto found = Blocked(b.events());
  ASSERT_EQ(found.size(), 1u);
  const Deadlock& d = found[0];
  EXPECT_EQ(d.engine, "blocked");
  EXPECT_EQ(d.guarantee, Guarantee::kHappened);
  EXPECT_TRUE(d.witness.schedule.empty());  // the recorded run itself
  ASSERT_EQ(d.cycle.size(), 2u);
  EXPECT_EQ(d.cycle[0].tid, b.Thread("T1"));
  EXPECT_EQ(d.cycle[0].held_lock, b.Lock("A"));
  EXPECT_EQ(d.cycle[0].held_acquire.pc, 1u);
  EXPECT_EQ(d.cycle[0].wanted_lock, b.Lock("B"));
  EXPECT_EQ(d.cycle[0].blocked_acquire.pc, 3u);
  EXPECT_EQ(d.cycle[0].blocked_acquire.kind, EventKind::kLockRequest);
  EXPECT_EQ(d.cycle[1].tid, b.Thread("T2"));
  EXPECT_EQ(d.cycle[1].held_lock, b.Lock("B"));
  EXPECT_EQ(d.cycle[1].wanted_lock, b.Lock("A"));
  EXPECT_EQ(d.cycle[1].blocked_acquire.pc, 4u);
  // The deadlock engine predicts from acquisitions, and these never happened.
  EXPECT_TRUE(test::RunEngine("deadlock", b.events()).deadlocks.empty());
}

TEST(BlockedTest, ARequestThatWasGrantedIsNoWait) {
  TraceBuilder b;
  b.Acquire("T1", "A", 1).Acquire("T2", "B", 2);
  Request(b, "T1", "B", 3);
  Request(b, "T2", "A", 4);
  b.Release("T2", "B", 5);
  b.Add("T1", EventKind::kLockWait, b.Lock("B"), 6, 1000).Acquire("T1", "B", 7);
  EXPECT_TRUE(Blocked(b.events()).empty());
  TraceBuilder failed;  // the call failed (EDEADLK) and the thread went on
  failed.Acquire("T1", "A", 1).Acquire("T2", "B", 2);
  Request(failed, "T1", "B", 3);
  Request(failed, "T2", "A", 4);
  failed.Write("T1", "x", 5);
  EXPECT_TRUE(Blocked(failed.events()).empty());
}

TEST(BlockedTest, AThreadWaitingForALockItHolds) {
  TraceBuilder b;
  b.Acquire("T1", "A", 1);
  Request(b, "T1", "A", 2);
  const auto found = Blocked(b.events());
  ASSERT_EQ(found.size(), 1u);
  ASSERT_EQ(found[0].cycle.size(), 1u);
  EXPECT_EQ(found[0].cycle[0].held_lock, b.Lock("A"));
  EXPECT_EQ(found[0].cycle[0].wanted_lock, b.Lock("A"));
}

TEST(BlockedTest, WaitingWithoutACycleIsNoDeadlock) {
  TraceBuilder b;  // T2 waits for T1, which waits for nothing (it was killed running)
  b.Acquire("T1", "A", 1).Acquire("T2", "B", 2);
  Request(b, "T2", "A", 3);
  EXPECT_TRUE(Blocked(b.events()).empty());
  TraceBuilder released;  // T2 released B in the cond wait it is still in: T1 waits for nobody
  released.Acquire("T1", "A", 1).Acquire("T2", "B", 2);
  released.Add("T2", EventKind::kCondWaitBegin, 99, 3, released.Lock("B"));
  Request(released, "T1", "B", 4);
  EXPECT_TRUE(Blocked(released.events()).empty());
}

TEST(BlockedTest, ReadersDoNotBlockReaders) {
  TraceBuilder b;  // both hold R for reading; T1's read request of R waits for no one
  b.Acquire("T1", "R", 1, LockMode::kShared).Acquire("T2", "B", 2).Acquire("T2", "R", 3, LockMode::kShared);
  Request(b, "T1", "B", 4);
  Request(b, "T2", "R", 5, LockMode::kShared);
  EXPECT_TRUE(Blocked(b.events()).empty());
  TraceBuilder writer;  // a write request of R waits for every reader
  writer.Acquire("T1", "R", 1, LockMode::kShared).Acquire("T2", "B", 2);
  Request(writer, "T1", "B", 3);
  Request(writer, "T2", "R", 4);
  ASSERT_EQ(Blocked(writer.events()).size(), 1u);
}

// Random traces: run each deadlock the deadlock engine predicts to its
// witness (each thread holding its lock), let every thread of the cycle
// request the lock it is blocked on, and stop: the blocked engine finds a
// deadlock on the same locks.
TEST(BlockedTest, EveryPredictedDeadlockRunToItsWitnessHappened) {
  int deadlocks = 0;
  for (uint64_t seed = 1; seed <= 300; ++seed) {
    const std::vector<Event> events = test::RandomTrace(test::LockCycleTraceOptions(), seed);
    for (const Deadlock& predicted : test::RunEngine("deadlock", events).deadlocks) {
      ++deadlocks;
      std::vector<Event> run;
      for (uint64_t position : predicted.witness.schedule.Positions()) run.push_back(events[position]);
      std::set<uint64_t> locks;
      for (const DeadlockThread& t : predicted.cycle) {
        Event request = events[t.blocked_acquire.index];
        request.kind = EventKind::kLockRequest;
        run.push_back(request);
        locks.insert(t.held_lock);
      }
      for (size_t i = 0; i < run.size(); ++i) run[i].index = i;
      std::set<std::set<uint64_t>> happened;
      for (const Deadlock& d : Blocked(run)) {
        std::set<uint64_t> held;
        for (const DeadlockThread& t : d.cycle) held.insert(t.held_lock);
        happened.insert(held);
      }
      EXPECT_TRUE(happened.count(locks)) << "seed " << seed;
    }
  }
  EXPECT_GT(deadlocks, 10) << "the random traces should hold deadlocks to compare";
}

}  // namespace
}  // namespace seer::predictor
