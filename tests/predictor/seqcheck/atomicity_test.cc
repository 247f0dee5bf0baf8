// Atomicity-violation prediction: the classic lost update and check-then-act,
// and their correct versions (the whole update in one critical section).
#include "predictor/seqcheck/atomicity.h"

#include <gtest/gtest.h>

#include "predictor/engine.h"
#include "predictor/seqcheck/witness_checker.h"
#include "tests/support/trace_builder.h"

namespace seer::predictor::seqcheck {
namespace {

std::vector<AtomicityViolation> Predict(const std::vector<Event>& trace, SeqCheckStats* stats) {
  SeqCheckStats local;
  if (stats == nullptr) stats = &local;
  TraceModel m(trace);
  auto found = PredictAtomicityViolations(m, AtomicityOptions{}, stats);
  EXPECT_EQ(stats->invalid_witnesses, 0u);
  WitnessChecker checker(trace);
  for (const AtomicityViolation& v : found) {
    EXPECT_TRUE(v.witness.validated);
    Status s = checker.CheckAtomicity(v);
    EXPECT_TRUE(s.ok()) << s.ToString();
  }
  return found;
}

std::vector<AtomicityViolation> Predict(const std::vector<std::string>& lines, SeqCheckStats* stats = nullptr) {
  SeqCheckStats local;
  return Predict(test::TraceBuilder().Std(lines).events(), stats ? stats : &local);
}

TEST(Atomicity, LostUpdateAcrossTwoCriticalSections) {
  // T1 reads the counter under one hold of l and writes it under the next; T2's
  // reset can run in between (it ran after T1 here).
  auto found = Predict({"T1|acq(l)|1", "T1|r(count)|2", "T1|rel(l)|3", "T1|acq(l)|4", "T1|w(count)|5", "T1|rel(l)|6",
                        "T2|acq(l)|7", "T2|w(count)|8", "T2|rel(l)|9"});
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].pattern, "read-write-write");
  EXPECT_EQ(found[0].local_first.pc, 2u);
  EXPECT_EQ(found[0].remote.pc, 8u);
  EXPECT_EQ(found[0].local_second.pc, 5u);
}

// The candidates no sound reordering realises (Findings::atomicity_candidates).
std::vector<AtomicityViolation> Candidates(const std::vector<std::string>& lines, size_t* violations) {
  SeqCheckStats stats;
  TraceModel m(test::TraceBuilder().Std(lines).events());
  std::vector<AtomicityViolation> candidates;
  *violations = PredictAtomicityViolations(m, AtomicityOptions{}, &stats, &candidates).size();
  return candidates;
}

TEST(Atomicity, IntruderThatReadsWhatItOverwritesIsACandidate) {
  // T2 copies the count, then overwrites it: moved between T1's two sections its
  // read would see T1's first value, not T1's write: no sound witness, so no
  // violation; the program run that way loses T1's update all the same.
  size_t violations = 0;
  auto candidates = Candidates({"T1|acq(l)|1", "T1|r(count)|2", "T1|rel(l)|3", "T1|acq(l)|4", "T1|w(count)|5",
                                "T1|rel(l)|6", "T2|acq(l)|7", "T2|r(count)|8", "T2|w(count)|9", "T2|rel(l)|10"},
                               &violations);
  EXPECT_EQ(violations, 0u);
  ASSERT_EQ(candidates.size(), 1u);
  EXPECT_EQ(candidates[0].pattern, "read-write-write");
  EXPECT_EQ(candidates[0].local_first.pc, 2u);
  EXPECT_EQ(candidates[0].remote.pc, 9u);
  EXPECT_EQ(candidates[0].local_second.pc, 5u);
  EXPECT_TRUE(candidates[0].witness.schedule.empty());
}

TEST(Atomicity, ProvenViolationIsNoCandidate) {
  size_t violations = 0;
  auto candidates = Candidates({"T1|acq(l)|1", "T1|r(count)|2", "T1|rel(l)|3", "T1|acq(l)|4", "T1|w(count)|5",
                                "T1|rel(l)|6", "T2|acq(l)|7", "T2|w(count)|8", "T2|rel(l)|9"},
                               &violations);
  EXPECT_EQ(violations, 1u);
  EXPECT_TRUE(candidates.empty());
}

TEST(Atomicity, IntruderAfterAJoinIsNoCandidate) {
  // main writes the count after joining T1: in every run after T1's write, so
  // no run can have it between T1's accesses (infeasible, and not a candidate).
  size_t violations = 0;
  auto candidates = Candidates({"M|fork(T1)|1", "T1|acq(l)|2", "T1|r(count)|3", "T1|rel(l)|4", "T1|acq(l)|5",
                                "T1|w(count)|6", "T1|rel(l)|7", "M|join(T1)|8", "M|w(count)|9"},
                               &violations);
  EXPECT_EQ(violations, 0u);
  EXPECT_TRUE(candidates.empty());
}

TEST(Atomicity, LostUpdateFixedInOneCriticalSection) {
  EXPECT_TRUE(Predict({"T1|acq(l)|1", "T1|r(count)|2", "T1|w(count)|5", "T1|rel(l)|6", "T2|acq(l)|7", "T2|w(count)|8",
                       "T2|rel(l)|9"})
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
  EXPECT_TRUE(
      Predict({"T1|acq(l)|1", "T1|r(p)|2", "T1|r(p)|5", "T1|rel(l)|6", "T2|acq(l)|7", "T2|w(p)|8", "T2|rel(l)|9"})
          .empty());
}

TEST(Atomicity, IntruderThatMustComeFirstIsNotReported) {
  // T1 reads what T2 wrote: T2's write cannot move between T1's accesses.
  EXPECT_TRUE(Predict({"T2|w(x)|1", "T1|r(x)|2", "T1|w(x)|3"}).empty());
}

TEST(Atomicity, ForkJoinHandOffIsNotReported) {
  // main: total = 100; fork both workers; join them; read total. Each worker's
  // update under the lock is ordered after main's write by the fork and before
  // main's read by the join, in every schedule: the hand-off is the design.
  SeqCheckStats stats;
  auto found = Predict(
      {"M|w(total)|1", "M|fork(A)|2", "M|fork(B)|3", "A|acq(l)|10", "A|r(total)|11", "A|w(total)|12", "A|rel(l)|13",
       "B|acq(l)|10", "B|r(total)|11", "B|w(total)|12", "B|rel(l)|13", "M|join(A)|4", "M|join(B)|5", "M|r(total)|6"},
      &stats);
  EXPECT_TRUE(found.empty());
  EXPECT_EQ(stats.forced, 2u);  // main's write and read around each worker's write
  EXPECT_GE(stats.filtered, stats.forced);
}

// Two threads hand `x` over with semaphore-like signals, then with two
// barrier rounds; either way T2's write runs after T1's write and before T1's
// read in every schedule.
TEST(Atomicity, SignalWaitHandOffIsNotReported) {
  test::TraceBuilder b;
  b.Write("T1", "x", 1).Add("T1", EventKind::kSignal, 100, 2);  // sem_post(s)
  b.Add("T2", EventKind::kWait, 100, 10).Write("T2", "x", 11).Add("T2", EventKind::kSignal, 101, 12);
  b.Add("T1", EventKind::kWait, 101, 3).Read("T1", "x", 4);
  SeqCheckStats stats;
  EXPECT_TRUE(Predict(b.events(), &stats).empty());
  EXPECT_EQ(stats.forced, 1u);

  test::TraceBuilder c;
  c.Write("T1", "x", 1).Add("T1", EventKind::kBarrierArrive, 200, 2).Add("T2", EventKind::kBarrierArrive, 200, 10);
  c.Add("T1", EventKind::kBarrierDepart, 200, 3).Add("T2", EventKind::kBarrierDepart, 200, 11).Write("T2", "x", 12);
  c.Add("T2", EventKind::kBarrierArrive, 201, 13).Add("T1", EventKind::kBarrierArrive, 201, 4);
  c.Add("T1", EventKind::kBarrierDepart, 201, 5).Read("T1", "x", 6).Add("T2", EventKind::kBarrierDepart, 201, 14);
  SeqCheckStats barrier;
  EXPECT_TRUE(Predict(c.events(), &barrier).empty());
  EXPECT_EQ(barrier.forced, 1u);
}

TEST(Atomicity, ForcedOnOneSideOnlyIsStillChecked) {
  // The fork orders the worker's write after main's write, but main reads
  // before the join: the write may run after the read, and the recorded run
  // put it between them.
  SeqCheckStats before_join;
  auto found = Predict({"M|w(x)|1", "M|fork(A)|2", "A|w(x)|10", "M|r(x)|3", "M|join(A)|4"}, &before_join);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].pattern, "write-write-read");
  EXPECT_EQ(found[0].remote.pc, 10u);
  EXPECT_EQ(before_join.forced, 0u);
  EXPECT_GT(before_join.checks, 0u);

  // The join orders the worker's write before main's read, but main writes
  // after the fork: the worker's write ran first here, and may run between.
  SeqCheckStats after_fork;
  found = Predict({"M|fork(A)|1", "A|w(x)|10", "M|w(x)|2", "M|join(A)|3", "M|r(x)|4"}, &after_fork);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].pattern, "write-write-read");
  EXPECT_EQ(found[0].remote.pc, 10u);
  EXPECT_EQ(after_fork.forced, 0u);
}

TEST(Atomicity, LockOrderedIntruderIsStillReported) {
  // The lock put T2's write between T1's read and the write it feeds (the next
  // section of the lock) in this run; lock order is not hard (T2 may take the
  // lock first), so this is not the design.
  SeqCheckStats stats;
  auto found = Predict({"T1|acq(l)|1", "T1|r(x)|2", "T1|rel(l)|3", "T2|acq(l)|10", "T2|w(x)|11", "T2|rel(l)|12",
                        "T1|acq(l)|4", "T1|w(x)|5", "T1|rel(l)|6"},
                       &stats);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].pattern, "read-write-write");
  EXPECT_EQ(stats.forced, 0u);
}

// The regions of docs/seqcheck.md ("What a region is"): `lines` predicted with
// regions (the default) and without (any pair in the window, as before).
struct RegionRun {
  std::vector<AtomicityViolation> with, without;
  SeqCheckStats stats;
};
RegionRun PredictRegions(const std::vector<Event>& trace) {
  RegionRun run;
  run.with = Predict(trace, &run.stats);
  TraceModel m(trace);
  AtomicityOptions any;
  any.regions = false;
  SeqCheckStats stats;
  run.without = PredictAtomicityViolations(m, any, &stats);
  EXPECT_EQ(stats.outside_region, 0u);
  return run;
}
RegionRun PredictRegions(const std::vector<std::string>& lines) {
  return PredictRegions(test::TraceBuilder().Std(lines).events());
}

TEST(AtomicityRegions, WriteThenLaterSectionIsNoRegion) {
  // Issue #34's loop copy: T1 writes x under l, releases (publishing it), and
  // reads it under the lock's next hold; T2's update in between is no bug.
  RegionRun r = PredictRegions({"T1|acq(l)|1", "T1|w(x)|2", "T1|rel(l)|3", "T2|acq(l)|10", "T2|w(x)|11", "T2|rel(l)|12",
                                "T1|acq(l)|4", "T1|r(x)|5", "T1|rel(l)|6"});
  EXPECT_TRUE(r.with.empty());
  EXPECT_EQ(r.stats.outside_region, 1u);
  ASSERT_EQ(r.without.size(), 1u);  // what the engine reported before regions
  EXPECT_EQ(r.without[0].pattern, "write-write-read");
}

TEST(AtomicityRegions, ReadFlowsOnlyIntoTheNextSectionOfItsLock) {
  // Read under l, write under m: the write's section is not l's next one.
  RegionRun other = PredictRegions({"T1|acq(l)|1", "T1|r(x)|2", "T1|rel(l)|3", "T2|acq(l)|10", "T2|w(x)|11",
                                    "T2|rel(l)|12", "T1|acq(m)|4", "T1|w(x)|5", "T1|rel(m)|6"});
  EXPECT_TRUE(other.with.empty());
  EXPECT_EQ(other.without.size(), 1u);
  // Read under l, an empty hold of l, the write under the hold after it.
  RegionRun later =
      PredictRegions({"T1|acq(l)|1", "T1|r(x)|2", "T1|rel(l)|3", "T2|acq(l)|10", "T2|w(x)|11", "T2|rel(l)|12",
                      "T1|acq(l)|4", "T1|rel(l)|5", "T1|acq(l)|6", "T1|w(x)|7", "T1|rel(l)|8"});
  EXPECT_TRUE(later.with.empty());
  EXPECT_EQ(later.without.size(), 1u);
  // A shared (read-mode) hold then an exclusive one of the same rwlock: the
  // upgrade of a lookup, one region.
  RegionRun upgrade = PredictRegions({"T1|acq(l mode=shared)|1", "T1|r(x)|2", "T1|rel(l mode=shared)|3", "T2|acq(l)|10",
                                      "T2|w(x)|11", "T2|rel(l)|12", "T1|acq(l)|4", "T1|w(x)|5", "T1|rel(l)|6"});
  ASSERT_EQ(upgrade.with.size(), 1u);
  EXPECT_EQ(upgrade.with[0].pattern, "read-write-write");
}

TEST(AtomicityRegions, PollingReadAtTheSameInstructionIsANewLook) {
  // The same instruction reads x in two holds (a polling loop): not a region;
  // at another instruction (check, then use) it is.
  RegionRun poll = PredictRegions({"T1|acq(l)|1", "T1|r(x)|2", "T1|rel(l)|3", "T2|acq(l)|10", "T2|w(x)|11",
                                   "T2|rel(l)|12", "T1|acq(l)|1", "T1|r(x)|2", "T1|rel(l)|3"});
  EXPECT_TRUE(poll.with.empty());
  EXPECT_EQ(poll.without.size(), 1u);
}

TEST(AtomicityRegions, ConditionWaitIsAHandOff) {
  // while (!ready) wait(c, l); ready = 0: T1 reads `ready`, waits (releasing l),
  // T2 sets it and signals, T1 consumes it. The wait is for T2's write.
  test::TraceBuilder b;
  const uint64_t c = 500, l = b.Lock("l");
  b.Acquire("T1", "l", 1).Read("T1", "ready", 2).Add("T1", EventKind::kCondWaitBegin, c, 3, l);
  b.Acquire("T2", "l", 10).Write("T2", "ready", 11).Add("T2", EventKind::kSignal, c, 12).Release("T2", "l", 13);
  b.Add("T1", EventKind::kCondWaitEnd, c, 4, l).Write("T1", "ready", 5).Release("T1", "l", 6);
  RegionRun r = PredictRegions(b.events());
  EXPECT_TRUE(r.with.empty());
  ASSERT_EQ(r.without.size(), 1u);
  EXPECT_EQ(r.without[0].pattern, "read-write-write");
}

TEST(AtomicityRegions, ASectionHeldThroughoutSpansInnerReleases) {
  // T1 holds a around both accesses and takes b inside; T2 writes x without a
  // lock. The release of b does not end a's region.
  RegionRun held = PredictRegions(
      {"T1|acq(a)|1", "T1|w(x)|2", "T1|acq(b)|3", "T1|rel(b)|4", "T2|w(x)|10", "T1|r(x)|5", "T1|rel(a)|6"});
  ASSERT_EQ(held.with.size(), 1u);
  EXPECT_EQ(held.with[0].pattern, "write-write-read");
  // Without a, the release of b between them ends the region.
  RegionRun bare = PredictRegions({"T1|w(x)|2", "T1|acq(b)|3", "T1|rel(b)|4", "T2|w(x)|10", "T1|r(x)|5"});
  EXPECT_TRUE(bare.with.empty());
  EXPECT_EQ(bare.without.size(), 1u);
  // Outside every lock with no release between: one region.
  RegionRun none = PredictRegions({"T1|w(x)|2", "T2|w(x)|10", "T1|r(x)|5"});
  EXPECT_EQ(none.with.size(), 1u);
}

TEST(AtomicityRegions, OneFunctionActivation) {
  const std::vector<std::string> remote = {"T2|w(x)|10"};
  auto run = [&](std::vector<std::string> before, std::vector<std::string> after) {
    before.insert(before.end(), remote.begin(), remote.end());
    before.insert(before.end(), after.begin(), after.end());
    return PredictRegions(before);
  };
  // Two calls of one function from a loop: two activations.
  RegionRun calls =
      run({"T1|func_entry|1", "T1|w(x)|2", "T1|func_exit|3"}, {"T1|func_entry|1", "T1|r(x)|4", "T1|func_exit|3"});
  EXPECT_TRUE(calls.with.empty());
  EXPECT_EQ(calls.without.size(), 1u);
  // A caller's access and its callee's, either way round: one region.
  EXPECT_EQ(run({"T1|func_entry|1", "T1|w(x)|2"}, {"T1|func_entry|5", "T1|r(x)|4", "T1|func_exit|6", "T1|func_exit|3"})
                .with.size(),
            1u);
  EXPECT_EQ(run({"T1|func_entry|1", "T1|func_entry|5", "T1|w(x)|2", "T1|func_exit|6"}, {"T1|r(x)|4", "T1|func_exit|3"})
                .with.size(),
            1u);
  // A trace (or window) that starts inside a call: its caller encloses it.
  EXPECT_EQ(run({"T1|w(x)|2", "T1|func_exit|3"}, {"T1|r(x)|4"}).with.size(), 1u);
  EXPECT_TRUE(run({"T1|w(x)|2", "T1|func_exit|3"}, {"T1|func_entry|1", "T1|r(x)|4"}).with.empty());
}

TEST(AtomicityRegions, AMarkedBlockIsOneRegion) {
  // The loop copy inside a block the program marks atomic: one region.
  RegionRun marked =
      PredictRegions({"T1|begin|0", "T1|acq(l)|1", "T1|w(x)|2", "T1|rel(l)|3", "T2|acq(l)|10", "T2|w(x)|11",
                      "T2|rel(l)|12", "T1|acq(l)|4", "T1|r(x)|5", "T1|rel(l)|6", "T1|end|7"});
  ASSERT_EQ(marked.with.size(), 1u);
  EXPECT_EQ(marked.with[0].pattern, "write-write-read");
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

// T1 writes `address` in a block, frees the block; T2 gets the same block from
// the allocator, reads `address` and frees it; T1 gets it back and writes
// `address` again. With `reuse` false, the same accesses without the allocator.
std::vector<Event> WriteReadWrite(uint64_t address, bool reuse) {
  constexpr uint64_t kBlock = 4096, kSize = 16;
  test::TraceBuilder b;
  b.Add("T1", EventKind::kWrite, address, 2, 8);
  if (reuse) {
    b.Add("T1", EventKind::kFree, kBlock, 3, kSize);
    b.Add("T2", EventKind::kAlloc, kBlock, 4, kSize);
  }
  b.Add("T2", EventKind::kRead, address, 5, 8);
  if (reuse) {
    b.Add("T2", EventKind::kFree, kBlock, 6, kSize);
    b.Add("T1", EventKind::kAlloc, kBlock, 7, kSize);
  }
  b.Add("T1", EventKind::kWrite, address, 8, 8);
  return b.events();
}

TEST(Atomicity, ReusedBlockIsANewVariable) {
  // The three accesses share an address but not a block: no write-read-write
  // violation. (CI once saw this in the philosophers program: std::thread's
  // state and the vector of threads reused each other's blocks.)
  SeqCheckStats stats;
  EXPECT_TRUE(Predict(WriteReadWrite(4096, true), &stats).empty());
  EXPECT_TRUE(Predict(WriteReadWrite(4104, true), &stats).empty());  // the block's second word too
  // On one block, the same accesses are a violation: the free and alloc matter.
  auto found = Predict(WriteReadWrite(4096, false), &stats);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].pattern, "write-read-write");
  // An address just past the block keeps its identity across the reuse.
  found = Predict(WriteReadWrite(4112, true), &stats);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].pattern, "write-read-write");
}

// Accesses are byte ranges: a 16-byte copy into a struct conflicts with a field
// of it at another start address (docs/analyses.md, "SeqCheck's own patterns").
std::vector<Event> FieldUpdateAndStructCopy(uint64_t copy_address, uint64_t copy_size, bool one_section) {
  constexpr uint64_t kField = 0x1004;  // the second int of a struct at 0x1000
  test::TraceBuilder b;
  b.Acquire("T1", "l", 1).Add("T1", EventKind::kRead, kField, 2, 4);
  if (!one_section) b.Release("T1", "l", 3).Acquire("T1", "l", 4);
  b.Add("T1", EventKind::kWrite, kField, 5, 4).Release("T1", "l", 6);
  b.Acquire("T2", "l", 7).Add("T2", EventKind::kWrite, copy_address, 8, copy_size).Release("T2", "l", 9);
  return b.events();
}

TEST(Atomicity, RangeIntruderAtAnotherStartAddress) {
  auto found = Predict(FieldUpdateAndStructCopy(0x1000, 16, false), nullptr);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].pattern, "read-write-write");
  EXPECT_EQ(found[0].remote.pc, 8u);
  // A copy that ends where the field starts, or starts where it ends, shares no byte with it.
  EXPECT_TRUE(Predict(FieldUpdateAndStructCopy(0x1000, 4, false), nullptr).empty());
  EXPECT_TRUE(Predict(FieldUpdateAndStructCopy(0x1008, 8, false), nullptr).empty());
  // An unaligned 2-byte write over the field's last byte does.
  EXPECT_EQ(Predict(FieldUpdateAndStructCopy(0x1007, 2, false), nullptr).size(), 1u);
  // The correct twin: the field's read and write in one critical section.
  EXPECT_TRUE(Predict(FieldUpdateAndStructCopy(0x1000, 16, true), nullptr).empty());
}

TEST(Atomicity, LocalAccessesAreRangesToo) {
  // T1 reads the whole struct (a copy out) and later writes one field of it; T2
  // writes another field in between: only the bytes both of T1's accesses touch
  // count, so T2's field must be the one T1 writes back.
  for (uint64_t remote : {0x1004u, 0x100cu}) {
    test::TraceBuilder b;
    b.Acquire("T1", "l", 1).Add("T1", EventKind::kRead, 0x1000, 2, 16).Release("T1", "l", 3);
    b.Acquire("T1", "l", 4).Add("T1", EventKind::kWrite, 0x1004, 5, 4).Release("T1", "l", 6);
    b.Acquire("T2", "l", 7).Add("T2", EventKind::kWrite, remote, 8, 4).Release("T2", "l", 9);
    SeqCheckStats stats;
    auto found = Predict(b.events(), &stats);
    if (remote == 0x1004u) {
      ASSERT_EQ(found.size(), 1u);
      EXPECT_EQ(found[0].pattern, "read-write-write");
    } else {
      EXPECT_TRUE(found.empty());
    }
  }
}

// A free writes every byte of its block: freeing it between a thread's two
// accesses under separate holds of the lock is a violation (a use after free in
// that schedule); under one hold it is not.
std::vector<Event> AccessesAroundAFree(bool one_section, uint64_t field) {
  constexpr uint64_t kBlock = 0x2000, kSize = 24;
  test::TraceBuilder b;
  b.Add("T0", EventKind::kAlloc, kBlock, 1, kSize);
  b.Acquire("T1", "l", 2).Add("T1", EventKind::kRead, field, 3, 8);
  if (!one_section) b.Release("T1", "l", 4).Acquire("T1", "l", 5);
  b.Add("T1", EventKind::kWrite, field, 6, 8).Release("T1", "l", 7);
  // The free is recorded with the usable size (32), the allocation handed out 24.
  b.Acquire("T2", "l", 8).Add("T2", EventKind::kFree, kBlock, 9, 32).Release("T2", "l", 10);
  return b.events();
}

TEST(Atomicity, FreeBetweenTwoAccessesIsAWrite) {
  auto found = Predict(AccessesAroundAFree(false, 0x2008), nullptr);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].pattern, "read-write-write");
  EXPECT_EQ(found[0].remote.pc, 9u);
  EXPECT_TRUE(Predict(AccessesAroundAFree(true, 0x2008), nullptr).empty());
  // Bytes past the 24 the allocation handed out are not the block's.
  EXPECT_TRUE(Predict(AccessesAroundAFree(false, 0x2018), nullptr).empty());
}

TEST(Atomicity, EngineIsRegistered) {
  const EngineSpec* spec = FindEngine("atomicity");
  ASSERT_NE(spec, nullptr);
  EXPECT_TRUE(spec->in_default_set);
}

}  // namespace
}  // namespace seer::predictor::seqcheck
