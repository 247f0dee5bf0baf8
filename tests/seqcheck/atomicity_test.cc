// Atomicity-violation prediction: the classic lost update and check-then-act,
// and their correct versions (the whole update in one critical section).
#include "predictor/seqcheck/atomicity.h"

#include <gtest/gtest.h>

#include "predictor/engine.h"
#include "predictor/seqcheck/witness_checker.h"
#include "tests/support/trace_builder.h"

namespace seer::seqcheck {
namespace {

std::vector<AtomicityViolation> Predict(const std::vector<std::string>& lines) {
  std::vector<Event> trace = test::TraceBuilder().Std(lines).events();
  TraceModel m(trace);
  SeqCheckStats stats;
  auto found = PredictAtomicityViolations(m, AtomicityOptions{}, &stats);
  EXPECT_EQ(stats.invalid_witnesses, 0u);
  WitnessChecker checker(trace);
  for (const AtomicityViolation& v : found) {
    EXPECT_TRUE(v.witness.validated);
    Status s = checker.CheckAtomicity(v);
    EXPECT_TRUE(s.ok()) << s.ToString();
  }
  return found;
}

TEST(Atomicity, LostUpdateAcrossTwoCriticalSections) {
  // T1 reads the counter under one hold of l and writes it under the next; T2's
  // reset can run in between (it ran after T1 here).
  auto found = Predict({"T1|acq(l)|1", "T1|r(count)|2", "T1|rel(l)|3", "T1|acq(l)|4", "T1|w(count)|5",
                        "T1|rel(l)|6", "T2|acq(l)|7", "T2|w(count)|8", "T2|rel(l)|9"});
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].pattern, "read-write-write");
  EXPECT_EQ(found[0].local_first.pc, 2u);
  EXPECT_EQ(found[0].remote.pc, 8u);
  EXPECT_EQ(found[0].local_second.pc, 5u);
}

TEST(Atomicity, LostUpdateFixedInOneCriticalSection) {
  EXPECT_TRUE(Predict({"T1|acq(l)|1", "T1|r(count)|2", "T1|w(count)|5", "T1|rel(l)|6",
                       "T2|acq(l)|7", "T2|w(count)|8", "T2|rel(l)|9"})
                  .empty());
}

TEST(Atomicity, CheckThenActOnSharedPointer) {
  // if (p) use(p): the check and the use take the lock separately; T2 clears p.
  auto found = Predict({"T1|acq(l)|1", "T1|r(p)|2", "T1|rel(l)|3", "T1|acq(l)|4", "T1|r(p)|5", "T1|rel(l)|6",
                        "T2|acq(l)|7", "T2|w(p)|8", "T2|rel(l)|9"});
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].pattern, "read-write-read");
}

TEST(Atomicity, CheckThenActFixedInOneCriticalSection) {
  EXPECT_TRUE(Predict({"T1|acq(l)|1", "T1|r(p)|2", "T1|r(p)|5", "T1|rel(l)|6",
                       "T2|acq(l)|7", "T2|w(p)|8", "T2|rel(l)|9"})
                  .empty());
}

TEST(Atomicity, IntruderThatMustComeFirstIsNotReported) {
  // T1 reads what T2 wrote: T2's write cannot move between T1's accesses.
  EXPECT_TRUE(Predict({"T2|w(x)|1", "T1|r(x)|2", "T1|w(x)|3"}).empty());
}

TEST(Atomicity, WindowBoundsTheDistance) {
  std::vector<std::string> lines = {"T1|r(x)|1"};
  for (int i = 0; i < 20; ++i) lines.push_back("T1|w(y)|" + std::to_string(100 + i));
  lines.push_back("T1|w(x)|2");
  lines.push_back("T2|w(x)|3");
  std::vector<Event> trace = test::TraceBuilder().Std(lines).events();
  TraceModel m(trace);
  SeqCheckStats stats;
  AtomicityOptions narrow;
  narrow.window = 10;
  narrow.intruder_distance = 100;
  EXPECT_TRUE(PredictAtomicityViolations(m, narrow, &stats).empty());
  AtomicityOptions wide;
  wide.window = 30;
  wide.intruder_distance = 100;
  EXPECT_EQ(PredictAtomicityViolations(m, wide, &stats).size(), 1u);
}

// Two threads each run `for (i < 100) { lock(m); unlock(m); counter++; }`, the
// increment recorded as a read and a write of `counter` with no lock around it;
// the scheduler switches threads every few iterations (between increments, so
// the recorded run lost no update). `branches`: the trace records the loop's
// branch after each increment, as a compiler-instrumented build would.
std::vector<Event> CounterLoops(bool branches) {
  test::TraceBuilder b;
  int done[2] = {0, 0};
  const char* names[2] = {"T1", "T2"};
  for (int turn = 0; done[0] < 100 || done[1] < 100; ++turn) {
    const int t = turn % 2;
    const uint64_t pc = 10 * (t + 1);
    for (int k = 0; k < 3 + turn % 5 && done[t] < 100; ++k, ++done[t]) {
      b.Acquire(names[t], "m", pc + 1).Release(names[t], "m", pc + 2);
      b.Read(names[t], "counter", pc + 3).Write(names[t], "counter", pc + 4);
      if (branches) b.Add(names[t], EventKind::kBranch, 0, pc + 5);
    }
  }
  return b.events();
}

size_t LostUpdates(const std::vector<AtomicityViolation>& found) {
  size_t n = 0;
  for (const AtomicityViolation& v : found) {
    if (v.pattern != "read-write-write") continue;
    EXPECT_EQ(v.local_first.kind, EventKind::kRead);
    EXPECT_EQ(v.remote.kind, EventKind::kWrite);
    EXPECT_NE(v.remote.tid, v.local_first.tid);
    EXPECT_EQ(v.local_second.kind, EventKind::kWrite);
    ++n;
  }
  return n;
}

TEST(Atomicity, CounterLoopLostUpdateNeedsBranchEvents) {
  // Without branch events SeqCheck's sound default takes every read to be
  // followed by a branch: the other thread's write w' then needs the read just
  // before it to see its recorded write, and every increment's read saw the
  // previous increment's write. The writes of `counter` are chained in recorded
  // order, so no write can fall between a read and the write right after it:
  // the lost update is not predictable in that model, at any window.
  std::vector<Event> plain = CounterLoops(false);
  TraceModel m(plain);
  SeqCheckStats stats;
  AtomicityOptions o;
  o.feasibility.prefix_reduction = false;
  o.max_tries = 1000;
  auto found = PredictAtomicityViolations(m, o, &stats);
  EXPECT_EQ(stats.invalid_witnesses, 0u);
  EXPECT_GT(stats.checks, 100u);  // candidates were built and checked, not filtered away
  EXPECT_EQ(LostUpdates(found), 0u);

  // With the loop's branches recorded, the read right before the intruding
  // write is followed by no branch before it: it may see another value, and
  // read(T1) - write(T2) - write(T1) is predicted with the default options.
  std::vector<Event> branchy = CounterLoops(true);
  TraceModel mb(branchy);
  SeqCheckStats bs;
  found = PredictAtomicityViolations(mb, AtomicityOptions{}, &bs);
  EXPECT_EQ(bs.invalid_witnesses, 0u);
  EXPECT_GE(LostUpdates(found), 2u);  // T1 intruded on by T2 and T2 by T1
  WitnessChecker checker(branchy);
  for (const AtomicityViolation& v : found) {
    EXPECT_TRUE(v.witness.validated);
    EXPECT_TRUE(checker.CheckAtomicity(v).ok());
  }
}

TEST(Atomicity, EngineIsRegistered) {
  const EngineSpec* spec = FindEngine("atomicity");
  ASSERT_NE(spec, nullptr);
  EXPECT_TRUE(spec->in_default_set);
}

}  // namespace
}  // namespace seer::seqcheck
