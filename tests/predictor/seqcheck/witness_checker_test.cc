// The witness checker must reject what is not a feasible trace, or it proves nothing.
#include "predictor/seqcheck/witness_checker.h"

#include <gtest/gtest.h>

#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "predictor/seqcheck/races.h"
#include "predictor/seqcheck/trace_model.h"
#include "tests/support/trace_builder.h"

namespace seer::predictor::seqcheck {
namespace {

// 0 T1 acq(l)  1 T1 w(x)  2 T1 rel(l)  3 T2 acq(l)  4 T2 r(x)  5 T2 rel(l)  6 T2 w(y)
std::vector<Event> Trace() {
  return test::TraceBuilder()
      .Std({"T1|acq(l)|1", "T1|w(x)|2", "T1|rel(l)|3", "T2|acq(l)|4", "T2|r(x)|5", "T2|rel(l)|6", "T2|w(y)|7"})
      .events();
}

// An atomicity claim: events e1, e, e2 of `t` (positions) in `schedule`.
AtomicityViolation Violation(const std::vector<Event>& t, const std::string& pattern, size_t e1, size_t e, size_t e2,
                             std::vector<uint64_t> schedule) {
  AtomicityViolation v;
  v.pattern = pattern;
  v.local_first = EventRef::Of(t[e1]);
  v.remote = EventRef::Of(t[e]);
  v.local_second = EventRef::Of(t[e2]);
  v.witness.schedule = std::move(schedule);
  return v;
}

// A deadlock claim of two threads: each holds the lock of event `held` and is
// blocked at event `wanted`, after `schedule`.
Deadlock TwoThreadDeadlock(const std::vector<Event>& t, size_t held1, size_t wanted1, size_t held2, size_t wanted2,
                           Schedule schedule) {
  Deadlock d;
  d.cycle = {{t[held1].tid, t[held1].object, EventRef::Of(t[held1]), t[wanted1].object, EventRef::Of(t[wanted1])},
             {t[held2].tid, t[held2].object, EventRef::Of(t[held2]), t[wanted2].object, EventRef::Of(t[wanted2])}};
  d.witness.schedule = std::move(schedule);
  return d;
}

TEST(WitnessChecker, AcceptsTheTraceItselfAndItsPrefixes) {
  auto t = Trace();
  WitnessChecker c(t);
  EXPECT_TRUE(c.CheckFeasible({0, 1, 2, 3, 4, 5, 6}).ok());
  EXPECT_TRUE(c.CheckFeasible({0, 1, 2}).ok());
  EXPECT_TRUE(c.CheckFeasible({}).ok());
}

TEST(WitnessChecker, RejectsWrongPrefix) {
  auto t = Trace();
  WitnessChecker c(t);
  EXPECT_FALSE(c.CheckFeasible({0, 2}).ok());   // skips event 1
  EXPECT_FALSE(c.CheckFeasible({1}).ok());      // not the first event of T1
  EXPECT_FALSE(c.CheckFeasible({0, 0}).ok());   // runs twice
  EXPECT_FALSE(c.CheckFeasible({0, 99}).ok());  // not in the trace
}

// A thread's first event is not enabled before its fork: the parent's write
// before the fork does not race with the child's first read. (SeqCheck once
// confirmed such pairs and this checker accepted them; found by comparing with
// the brute-force oracle.)
TEST(WitnessChecker, ChildIsNotEnabledBeforeItsFork) {
  // 0 T0 w(x)  1 T0 fork(T1)  2 T1 r(x)  3 T0 w(x)
  auto t = test::TraceBuilder().Std({"T0|w(x)|1", "T0|fork(T1)|2", "T1|r(x)|3", "T0|w(x)|4"}).events();
  WitnessChecker c(t);
  EXPECT_FALSE(c.CheckRace({}, EventRef::Of(t[0]), EventRef::Of(t[2])).ok());
  EXPECT_TRUE(c.CheckRace({0, 1}, EventRef::Of(t[2]), EventRef::Of(t[3])).ok());

  TraceModel m(t);
  FeasibilityOptions f;
  f.prefix_reduction = false;
  FeasibilityChecker fc(m, f);
  SeqCheckStats stats;
  EXPECT_FALSE(ConfirmRace(m, &fc, m.NodeOfIndex(0), m.NodeOfIndex(2), &stats).confirmed);
  EXPECT_TRUE(ConfirmRace(m, &fc, m.NodeOfIndex(2), m.NodeOfIndex(3), &stats).confirmed);
  EXPECT_EQ(stats.invalid_witnesses, 0u);
}

TEST(WitnessChecker, RejectsLockViolation) {
  auto t = Trace();
  WitnessChecker c(t);
  EXPECT_FALSE(c.CheckFeasible({0, 3}).ok());  // T2 acquires l while T1 holds it
}

TEST(WitnessChecker, RejectsReadSeeingAnotherWrite) {
  auto t = Trace();
  WitnessChecker c(t);
  // T2 runs first: its read of x sees no write, but the trace had event 1 and a
  // later event of T2 runs (every read is followed by a branch here).
  EXPECT_FALSE(c.CheckFeasible({3, 4, 5, 6}).ok());
  // As T2's last event the read may see anything.
  EXPECT_TRUE(c.CheckFeasible({3, 4}).ok());
  // ... unless a later event of T2 must be reached.
  EXPECT_FALSE(c.CheckFeasible({3, 4}, {5}).ok());
}

// A trace that lost events may not replay even in its recorded order: a schedule
// that follows it past the point where it stops is checked event by event.
TEST(WitnessChecker, TheRecordedOrderIsCheckedWhereItDoesNotReplay) {
  // The join is recorded before the child's last event.
  auto joined = test::TraceBuilder().Std({"M|fork(A)|1", "A|w(x)|2", "M|join(A)|3", "A|w(y)|4"}).events();
  EXPECT_TRUE(WitnessChecker(joined).CheckFeasible({0, 1}).ok());
  EXPECT_FALSE(WitnessChecker(joined).CheckFeasible({0, 1, 2, 3}).ok());
  // A lock is recorded taken while another thread holds it.
  auto locked = test::TraceBuilder().Std({"A|acq(l)|1", "B|acq(l)|2", "A|rel(l)|3", "B|rel(l)|4"}).events();
  EXPECT_TRUE(WitnessChecker(locked).CheckFeasible({0}).ok());
  EXPECT_FALSE(WitnessChecker(locked).CheckFeasible({0, 1, 2, 3}).ok());
}

// A schedule that starts with a long recorded prefix takes its state from the
// replay of the recorded order (checkpoints every few thousand events): the
// locks held there count as if it ran them one by one.
TEST(WitnessChecker, ALongRecordedPrefixKeepsItsLocks) {
  test::TraceBuilder b;
  b.Acquire("A", "l", 1);
  for (int i = 0; i < 10000; ++i) b.Write("A", "x", 2);
  b.Release("A", "l", 3);
  b.Acquire("B", "l", 4);
  auto t = b.events();
  WitnessChecker c(t);
  for (uint64_t prefix : {1u, 4096u, 4097u, 9000u, 10001u}) {
    std::vector<uint64_t> schedule;
    for (uint64_t i = 0; i < prefix; ++i) schedule.push_back(i);
    std::vector<uint64_t> with_b = schedule;
    with_b.push_back(t.size() - 1);  // B acquires l while A holds it
    EXPECT_TRUE(c.CheckFeasible(schedule).ok()) << prefix;
    EXPECT_FALSE(c.CheckFeasible(with_b).ok()) << prefix;
  }
  std::vector<uint64_t> all;
  for (uint64_t i = 0; i < t.size(); ++i) all.push_back(i);
  EXPECT_TRUE(c.CheckFeasible(all).ok());
}

TEST(WitnessChecker, RejectsJoinBeforeTheChildEnds) {
  auto t = test::TraceBuilder().Std({"M|fork(A)|1", "A|w(x)|2", "A|w(y)|3", "M|join(A)|4"}).events();
  WitnessChecker c(t);
  EXPECT_TRUE(c.CheckFeasible({0, 1, 2, 3}).ok());
  EXPECT_FALSE(c.CheckFeasible({0, 1, 3}).ok());
  EXPECT_FALSE(c.CheckFeasible({1}).ok());  // the child runs before its fork
}

TEST(WitnessChecker, RejectsAFalseDeadlockClaim) {
  auto t = test::TraceBuilder()
               .Std({"T1|acq(a)|1", "T1|acq(b)|2", "T1|rel(b)|3", "T1|rel(a)|4", "T2|acq(b)|5", "T2|acq(a)|6",
                     "T2|rel(a)|7", "T2|rel(b)|8"})
               .events();
  WitnessChecker c(t);
  Deadlock d = TwoThreadDeadlock(t, 0, 1, 4, 5, {0, 4});
  EXPECT_TRUE(c.CheckDeadlock(d).ok());
  d.witness.schedule = {0};  // T2 never took b
  EXPECT_FALSE(c.CheckDeadlock(d).ok());
  d.witness.schedule = {0, 1, 4};  // T1 is past its blocked acquisition
  EXPECT_FALSE(c.CheckDeadlock(d).ok());
}

// The back-off server's trace: T1 holds a and tries b, T2 holds b and blocks on
// a. Claiming T1 blocked at its trylock is false whatever the schedule: a
// trylock returns EBUSY, a timed lock ETIMEDOUT. The same claim on the blocking
// twin is accepted, so only the acquisition's kind makes the difference.
TEST(WitnessChecker, RejectsATrylockOrTimedLockAsTheBlockedRequest) {
  for (const char* how : {"", " how=try", " how=timed"}) {
    SCOPED_TRACE(std::string("T1's request:") + how);
    auto t = test::TraceBuilder()
                 .Std({"T1|acq(a)|1", std::string("T1|acq(b") + how + ")|2", "T1|rel(b)|3", "T1|rel(a)|4",
                       "T2|acq(b)|5", "T2|acq(a)|6", "T2|rel(a)|7", "T2|rel(b)|8"})
                 .events();
    WitnessChecker c(t);
    Deadlock d = TwoThreadDeadlock(t, 0, 1, 4, 5, {0, 4});
    EXPECT_TRUE(c.CheckFeasible(d.witness.schedule, {1, 5}).ok());  // the schedule itself is fine
    const Status s = c.CheckDeadlock(d);
    if (std::string(how).empty()) {
      EXPECT_TRUE(s.ok()) << s.ToString();
    } else {
      EXPECT_FALSE(s.ok());
      EXPECT_NE(s.message().find("trylock or timed lock"), std::string::npos) << s.ToString();
    }
  }
}

// A lock held through a trylock blocks the next thread like any other hold.
TEST(WitnessChecker, AcceptsATrylockAsTheHeldAcquisition) {
  auto t = test::TraceBuilder()
               .Std({"T1|acq(a how=try)|1", "T1|acq(b)|2", "T1|rel(b)|3", "T1|rel(a)|4", "T2|acq(b how=timed)|5",
                     "T2|acq(a)|6", "T2|rel(a)|7", "T2|rel(b)|8"})
               .events();
  WitnessChecker c(t);
  Deadlock d = TwoThreadDeadlock(t, 0, 1, 4, 5, {0, 4});
  const Status s = c.CheckDeadlock(d);
  EXPECT_TRUE(s.ok()) << s.ToString();
}

// Read-mode holds share a lock with each other, not with a write-mode hold,
// whichever comes first.
TEST(WitnessChecker, ReadModeHoldsShareOnlyWithReadModeHolds) {
  // 0 T1 acq(l, read)  1 T1 rel(l)  2 T2 acq(l, read)  3 T2 rel(l)  4 T3 acq(l)  5 T3 rel(l)
  auto t = test::TraceBuilder()
               .Std({"T1|acq(l mode=shared)|1", "T1|rel(l mode=shared)|2", "T2|acq(l mode=shared)|3",
                     "T2|rel(l mode=shared)|4", "T3|acq(l)|5", "T3|rel(l)|6"})
               .events();
  WitnessChecker c(t);
  EXPECT_TRUE(c.CheckFeasible({0, 2}).ok());  // two readers at once
  EXPECT_FALSE(c.CheckFeasible({0, 4}).ok());
  EXPECT_FALSE(c.CheckFeasible({4, 2}).ok());
  EXPECT_TRUE(c.CheckFeasible({0, 2, 1, 3, 4}).ok());  // the writer after both left
  EXPECT_FALSE(c.CheckFeasible({0, 2, 1, 4}).ok());    // T2 still reads
}

// A deadlock needs each request to wait for the next thread's hold: a
// read-mode request does not wait for a read-mode hold, a write-mode one does;
// and a thread does not wait for a lock it holds itself (it re-acquires).
TEST(WitnessChecker, RejectsADeadlockOnAHoldThatDoesNotBlockTheRequest) {
  for (const char* mode : {"", " mode=shared"}) {
    SCOPED_TRACE(std::string("T2's request:") + mode);
    // T1 holds a in read mode and wants b; T2 holds b and wants a.
    auto t =
        test::TraceBuilder()
            .Std({"T1|acq(a mode=shared)|1", "T1|acq(b)|2", "T1|rel(b)|3", "T1|rel(a mode=shared)|4", "T2|acq(b)|5",
                  std::string("T2|acq(a") + mode + ")|6", std::string("T2|rel(a") + mode + ")|7", "T2|rel(b)|8"})
            .events();
    WitnessChecker c(t);
    Deadlock d = TwoThreadDeadlock(t, 0, 1, 4, 5, {0, 4});
    const Status s = c.CheckDeadlock(d);
    EXPECT_EQ(s.ok(), std::string(mode).empty()) << s.ToString();
  }
  // Both hold a in read mode and want it in write mode.
  auto t = test::TraceBuilder()
               .Std({"T1|acq(a mode=shared)|1", "T2|acq(a mode=shared)|2", "T1|acq(a)|3", "T2|acq(a)|4", "T2|rel(a)|5",
                     "T2|rel(a mode=shared)|6", "T1|rel(a)|7", "T1|rel(a mode=shared)|8"})
               .events();
  WitnessChecker c(t);
  Deadlock d = TwoThreadDeadlock(t, 0, 2, 1, 3, {0, 1});
  const Status s = c.CheckDeadlock(d);
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("already holds"), std::string::npos) << s.ToString();
}

TEST(WitnessChecker, RejectsRemoteAccessOutsideTheLocalPair) {
  auto t = test::TraceBuilder().Std({"T1|r(x)|1", "T1|w(x)|2", "T2|w(x)|3"}).events();
  WitnessChecker c(t);
  AtomicityViolation v = Violation(t, "read-write-write", 0, 2, 1, {0, 2, 1});
  EXPECT_TRUE(c.CheckAtomicity(v).ok());
  v.witness.schedule = {0, 1, 2};
  EXPECT_FALSE(c.CheckAtomicity(v).ok());
  v.pattern = "read-write-read";
  v.witness.schedule = {0, 2, 1};
  EXPECT_FALSE(c.CheckAtomicity(v).ok());
}

TEST(WitnessChecker, AReusedBlockIsAnotherVariable) {
  // 0 T1 w(x)  1 T1 free(x)  2 T2 alloc(x)  3 T2 r(x)  4 T2 w(y)  5 T1 alloc(x)  6 T1 w(x)
  test::TraceBuilder b;
  b.Add("T1", EventKind::kWrite, 64, 1, 8)
      .Add("T1", EventKind::kFree, 64, 2, 8)
      .Add("T2", EventKind::kAlloc, 64, 3, 8)
      .Add("T2", EventKind::kRead, 64, 4, 8)
      .Add("T2", EventKind::kWrite, 128, 5, 8)
      .Add("T1", EventKind::kAlloc, 64, 6, 8)
      .Add("T1", EventKind::kWrite, 64, 7, 8);
  auto t = b.events();
  WitnessChecker c(t);
  AtomicityViolation v = Violation(t, "write-read-write", 0, 3, 6, {0, 1, 2, 3, 4, 5, 6});
  EXPECT_FALSE(c.CheckAtomicity(v).ok());  // three accesses to one address, but two blocks
  // T2's read saw no write to its block, and a later event of T2 runs: it must
  // see none in the schedule either. T1's write to the old block is not one.
  EXPECT_TRUE(c.CheckFeasible({2, 3, 4}).ok());
  EXPECT_TRUE(c.CheckFeasible({0, 1, 2, 3, 4}).ok());
}

// A free writes its whole block (predictor/common/sync_ops.h): a race witness
// may pair it with an access of another thread to any byte of the block, and
// with nothing outside it.
TEST(WitnessChecker, AFreeConflictsWithAccessesToItsBlock) {
  // 0 T1 w(block+8)  1 T1 w(after the block)  2 T2 free(block, 16 bytes)
  test::TraceBuilder b;
  b.Add("T1", EventKind::kWrite, 72, 1, 4)
      .Add("T1", EventKind::kWrite, 80, 2, 4)
      .Add("T2", EventKind::kFree, 64, 3, 16);
  auto t = b.events();
  WitnessChecker c(t);
  EXPECT_TRUE(c.CheckRace({}, EventRef::Of(t[0]), EventRef::Of(t[2])).ok());
  EXPECT_FALSE(c.CheckRace({0}, EventRef::Of(t[1]), EventRef::Of(t[2])).ok());
}

// Variables are bytes: a triple of accesses is one variable's when the three
// share a byte, whatever their start addresses and sizes.
TEST(WitnessChecker, AtomicityAccessesShareAByte) {
  for (auto [remote, size, shares] : {std::tuple{0x1000u, 16u, true}, std::tuple{0x1007u, 2u, true},
                                      std::tuple{0x1000u, 4u, false}, std::tuple{0x1008u, 8u, false}}) {
    // 0 T1 r(0x1004, 4)  1 T1 w(0x1004, 4)  2 T2 w(remote, size)
    test::TraceBuilder b;
    b.Add("T1", EventKind::kRead, 0x1004, 1, 4).Add("T1", EventKind::kWrite, 0x1004, 2, 4);
    b.Add("T2", EventKind::kWrite, remote, 3, size);
    auto t = b.events();
    WitnessChecker c(t);
    AtomicityViolation v = Violation(t, "read-write-write", 0, 2, 1, {0, 2, 1});
    EXPECT_EQ(c.CheckAtomicity(v).ok(), shares) << remote << "+" << size;
    EXPECT_EQ(c.CheckRace({0}, EventRef::Of(t[1]), EventRef::Of(t[2])).ok(), shares) << remote << "+" << size;
  }
}

// A read of a range keeps, byte by byte, the writes it saw.
TEST(WitnessChecker, ARangeReadKeepsEveryWriteItSaw) {
  // 0 T1 w(0x1000, 8)  1 T2 w(0x1008, 8)  2 T3 r(0x1000, 16)  3 T3 w(other)
  test::TraceBuilder b;
  b.Add("T1", EventKind::kWrite, 0x1000, 1, 8).Add("T2", EventKind::kWrite, 0x1008, 2, 8);
  b.Add("T3", EventKind::kRead, 0x1000, 3, 16).Add("T3", EventKind::kWrite, 0x3000, 4, 8);
  auto t = b.events();
  WitnessChecker c(t);
  EXPECT_TRUE(c.CheckFeasible({0, 1, 2, 3}).ok());
  EXPECT_FALSE(c.CheckFeasible({0, 2, 3}).ok());  // the second half saw no write
  EXPECT_FALSE(c.CheckFeasible({1, 2, 3}).ok());  // the first half saw no write
  EXPECT_TRUE(c.CheckFeasible({1, 2}).ok());      // nothing after the read: it need not see them
}

// A free writes the bytes its allocation handed out (not the usable size it is
// recorded with), and the block stays one variable until it is allocated again.
TEST(WitnessChecker, AFreeIsAWriteOfTheAllocatedBytes) {
  // 0 T0 alloc(0x2000, 24)  1 T1 r(0x2008)  2 T1 w(0x2008)  3 T1 r(0x2018)  4 T1 w(0x2018)
  // 5 T2 free(0x2000, usable 32)
  test::TraceBuilder b;
  b.Add("T0", EventKind::kAlloc, 0x2000, 1, 24);
  b.Add("T1", EventKind::kRead, 0x2008, 2, 8).Add("T1", EventKind::kWrite, 0x2008, 3, 8);
  b.Add("T1", EventKind::kRead, 0x2018, 4, 8).Add("T1", EventKind::kWrite, 0x2018, 5, 8);
  b.Add("T2", EventKind::kFree, 0x2000, 6, 32);
  auto t = b.events();
  WitnessChecker c(t);
  AtomicityViolation v = Violation(t, "read-write-write", 1, 5, 2, {0, 1, 5, 2});
  EXPECT_TRUE(c.CheckAtomicity(v).ok());
  v.local_first = EventRef::Of(t[3]);
  v.local_second = EventRef::Of(t[4]);
  v.witness.schedule = {0, 1, 2, 3, 5, 4};
  EXPECT_FALSE(c.CheckAtomicity(v).ok());  // 0x2018 is past the 24 allocated bytes
  EXPECT_TRUE(c.CheckRace({0, 1}, EventRef::Of(t[2]), EventRef::Of(t[5])).ok());
  EXPECT_FALSE(c.CheckRace({0, 1, 2}, EventRef::Of(t[3]), EventRef::Of(t[5])).ok());
}

// A free writes the bytes of its block that some access touches, and an
// allocation that writes its block (a small heap block) is such an access, as
// the engines' lowering makes it (sync_ops.h): the checker and the model agree.
TEST(WitnessChecker, AFreeWritesTheBytesAnAccessOrAllocationTouched) {
  {
    // 0 T1 alloc(0x2008, 8: writes it)  1 T2 free(0x2000, 16)
    test::TraceBuilder b;
    b.Add("T1", EventKind::kAlloc, 0x2008, 1, 8).Add("T2", EventKind::kFree, 0x2000, 2, 16);
    auto t = b.events();
    const TraceModel m(t);
    ASSERT_EQ(m.accesses(0).size(), 1u);
    ASSERT_EQ(m.accesses(1).size(), 1u);
    EXPECT_EQ(m.accesses(0)[0].var, m.accesses(1)[0].var);  // the model: they conflict
    EXPECT_TRUE(WitnessChecker(t).CheckRace({}, EventRef::Of(t[0]), EventRef::Of(t[1])).ok());
  }
  for (const bool accessed : {false, true}) {
    // 0 T1 free(0x4000, 16)  1 T2 free(0x4000, 16), and when `accessed`,
    // 2 T3 w(0x4000, 8) after both: two frees of bytes no access touches write nothing.
    test::TraceBuilder b;
    b.Add("T1", EventKind::kFree, 0x4000, 1, 16).Add("T2", EventKind::kFree, 0x4000, 2, 16);
    if (accessed) b.Add("T3", EventKind::kWrite, 0x4000, 3, 8);
    auto t = b.events();
    const TraceModel m(t);
    EXPECT_EQ(m.accesses(0).size(), accessed ? 1u : 0u);
    EXPECT_EQ(WitnessChecker(t).CheckRace({}, EventRef::Of(t[0]), EventRef::Of(t[1])).ok(), accessed);
  }
}

}  // namespace
}  // namespace seer::predictor::seqcheck
