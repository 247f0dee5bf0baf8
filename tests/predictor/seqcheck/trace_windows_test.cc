// SeqCheck by windows (trace_windows.h): a lock held across a window's start is
// carried into it, so findings stay those of the whole trace (every windowed
// witness, run after the events before its window, validates against the whole
// trace) and none appears that the held lock forbids; windows of one trace's
// length change nothing.
#include "predictor/seqcheck/trace_windows.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "predictor/engine.h"
#include "predictor/seqcheck/engines.h"
#include "predictor/seqcheck/witness_checker.h"
#include "tests/support/random_trace.h"
#include "tests/support/test_scale.h"
#include "tests/support/trace_builder.h"

namespace seer::predictor::seqcheck {
namespace {

Findings Run(std::unique_ptr<Engine> engine, const std::vector<Event>& trace) {
  Findings f;
  EXPECT_TRUE(engine->Begin(TraceInfo()).ok());
  // Small batches, as the driver's, so that windows close inside a batch too.
  for (size_t i = 0; i < trace.size(); i += 3) engine->Process(trace.data() + i, std::min<size_t>(3, trace.size() - i));
  EXPECT_TRUE(engine->Finish(&f).ok());
  return f;
}

Findings Deadlocks(const std::vector<Event>& trace, uint64_t window) {
  AnalysisOptions o;
  o.seqcheck_window = window;
  return Run(NewDeadlockEngine(o), trace);
}
Findings Atomicity(const std::vector<Event>& trace, uint64_t window) {
  AnalysisOptions o;
  o.seqcheck_window = window;
  return Run(NewAtomicityEngine(o), trace);
}

double Counter(const Findings& f, const std::string& name) {
  for (const auto& [key, value] : f.stats.back().counters)
    if (key == name) return value;
  ADD_FAILURE() << "no counter " << name;
  return -1;
}

// A witness of the window starting at trace position `start`, run after every
// event before it: a schedule of the whole trace.
std::vector<uint64_t> WholeTrace(const Schedule& schedule, uint64_t start) {
  std::vector<uint64_t> out;
  for (uint64_t i = 0; i < start; ++i) out.push_back(i);
  for (uint64_t i : schedule.Positions())
    if (i >= start) out.push_back(i);
  return out;
}

std::vector<std::string> Filler(int n) { return std::vector<std::string>(n, "T0|w(z)|100"); }

std::vector<Event> Std(std::vector<std::string> lines) { return test::TraceBuilder().Std(lines).events(); }

TEST(TraceWindows, DeadlockWithALockTakenInTheWindowBefore) {
  // Window 1: seven fillers and T1's acquire of a; window 2: the rest of the ABBA.
  std::vector<std::string> lines = Filler(7);
  for (const char* l : {"T1|acq(a)|1", "T1|acq(b)|2", "T1|rel(b)|3", "T1|rel(a)|4", "T2|acq(b)|5", "T2|acq(a)|6",
                        "T2|rel(a)|7", "T2|rel(b)|8"})
    lines.push_back(l);
  const std::vector<Event> trace = Std(lines);
  const Findings f = Deadlocks(trace, 8);
  EXPECT_EQ(Counter(f, "windows"), 2);
  ASSERT_EQ(f.deadlocks.size(), 1u);
  const Deadlock& d = f.deadlocks[0];
  ASSERT_TRUE(d.witness.validated);
  bool carried = false;
  for (const DeadlockThread& t : d.cycle) carried |= t.held_acquire.index == 7;
  EXPECT_TRUE(carried) << "T1 holds a since the window before";
  Deadlock whole = d;
  whole.witness.schedule = WholeTrace(d.witness.schedule, 8);
  const Status s = WitnessChecker(trace).CheckDeadlock(whole);
  EXPECT_TRUE(s.ok()) << s.ToString();
}

TEST(TraceWindows, AHeldLockCarriedIntoTheWindowKeepsIntrudersOut) {
  // T1 takes l in window 1 and writes then reads x under it in window 2; T2's
  // write under l cannot come between: no violation. Without the lock it can.
  std::vector<std::string> held = Filler(7), unheld = Filler(8);
  held.push_back("T1|acq(l)|1");
  for (const char* l : {"T1|w(x)|2", "T1|r(x)|3", "T1|rel(l)|4", "T2|acq(l)|5", "T2|w(x)|6", "T2|rel(l)|7"}) {
    held.push_back(l);
    if (std::string(l) != "T1|rel(l)|4") unheld.push_back(l);
  }
  const Findings with = Atomicity(Std(held), 8);
  EXPECT_EQ(Counter(with, "windows"), 2);
  EXPECT_TRUE(with.atomicity.empty()) << with.atomicity[0].pattern;
  const Findings without = Atomicity(Std(unheld), 8);
  ASSERT_EQ(without.atomicity.size(), 1u);
  EXPECT_EQ(without.atomicity[0].pattern, "write-write-read");
}

TEST(TraceWindows, RandomTracesWindowedFindingsHoldOnTheWholeTrace) {
  uint64_t deadlocks = 0, violations = 0, windowed = 0;
  for (uint64_t seed = 0; seed < uint64_t(test::Iterations(600)); ++seed) {
    test::RandomTraceOptions o;
    o.threads = 2 + seed % 3;
    o.events = 30 + seed % 60;
    o.locks = 2 + seed % 3;
    o.variables = 1 + seed % 3;
    o.max_nesting = 2;
    o.fork_join = seed % 3 != 0;
    o.signals = seed % 7 == 3;
    const std::vector<Event> trace = test::RandomTrace(o, seed);
    const WitnessChecker checker(trace);
    // One window: the same findings as before windows existed.
    {
      const Findings whole = Deadlocks(trace, 0), one = Deadlocks(trace, trace.size());
      ASSERT_EQ(whole.deadlocks.size(), one.deadlocks.size()) << "seed " << seed;
      const Findings a0 = Atomicity(trace, 0), a1 = Atomicity(trace, trace.size());
      ASSERT_EQ(a0.atomicity.size(), a1.atomicity.size()) << "seed " << seed;
    }
    const uint64_t window = 12 + seed % 30;
    const Findings d = Deadlocks(trace, window);
    windowed += static_cast<uint64_t>(Counter(d, "windows")) > 1;
    for (const Deadlock& x : d.deadlocks) {
      uint64_t last = 0;
      for (const DeadlockThread& t : x.cycle) last = std::max(last, t.blocked_acquire.index);
      Deadlock whole = x;
      whole.witness.schedule = WholeTrace(x.witness.schedule, last / window * window);
      const Status s = checker.CheckDeadlock(whole);
      ASSERT_TRUE(s.ok()) << "seed " << seed << ": " << s.ToString();
      ++deadlocks;
    }
    for (const AtomicityViolation& v : Atomicity(trace, window).atomicity) {
      AtomicityViolation whole = v;
      whole.witness.schedule = WholeTrace(v.witness.schedule, v.local_second.index / window * window);
      const Status s = checker.CheckAtomicity(whole);
      ASSERT_TRUE(s.ok()) << "seed " << seed << ": " << s.ToString();
      ++violations;
    }
  }
  EXPECT_GT(windowed, test::AtLeast(500));
  EXPECT_GT(deadlocks, test::AtLeast(20));
  EXPECT_GT(violations, test::AtLeast(20));
  std::printf("windowed random traces: %llu deadlocks, %llu atomicity violations validated on the whole trace\n",
              static_cast<unsigned long long>(deadlocks), static_cast<unsigned long long>(violations));
}

}  // namespace
}  // namespace seer::predictor::seqcheck

namespace seer::predictor::seqcheck {
namespace {

Event Lock(uint64_t index, uint32_t tid, EventKind kind, uint64_t lock) {
  Event e;
  e.index = index;
  e.tid = tid;
  e.kind = kind;
  e.object = lock;
  return e;
}

// The locks held as each window begins are carried in, whether the window
// before was kept or skipped (another shard's), and however many other locks
// were taken and released before (their entries are pruned, not carried).
TEST(TraceWindows, CarriesTheHeldLocksPastSkippedWindowsAndManyReleasedLocks) {
  std::vector<Event> trace;
  uint64_t i = 0;
  trace.push_back(Lock(i++, 1, EventKind::kAcquire, 7));  // held throughout
  trace.push_back(Lock(i++, 2, EventKind::kAcquire, 8));
  trace.push_back(Lock(i++, 2, EventKind::kAcquire, 8));  // reentrant: depth 2
  for (uint64_t lock = 100; lock < 100 + 3 * 16384; ++lock) {
    trace.push_back(Lock(i++, 3, EventKind::kAcquire, lock));
    trace.push_back(Lock(i++, 3, EventKind::kRelease, lock));
  }
  trace.push_back(Lock(i++, 2, EventKind::kRelease, 8));  // still held once
  const uint64_t window = 1000;
  for (bool skip : {false, true}) {
    TraceWindows windows(window);
    size_t at = 0, carried = 0;
    uint64_t taken = 0;
    while (at < trace.size()) {
      windows.SkipCurrent(skip && taken % 2 == 1);
      size_t used = 0;
      const bool full = windows.Add(trace.data() + at, trace.size() - at, &used);
      at += used;
      if (!full) break;
      const std::vector<Event> w = windows.Take(&carried);
      ++taken;
      if (taken > 1) {
        // Every window after the first opens with the two held locks' first
        // acquires (and thread 3's lock when a window closed inside its section).
        ASSERT_GE(w.size(), 2u);
        ASSERT_GE(carried, 2u) << "window " << taken << (skip ? ", skipping" : "");
        ASSERT_LE(carried, 3u) << "window " << taken << (skip ? ", skipping" : "");
        EXPECT_EQ(w[0].index, 0u);
        EXPECT_EQ(w[1].index, 1u);
      }
      if (skip && taken % 2 == 0) {
        EXPECT_EQ(w.size(), carried) << "a skipped window keeps its carried acquires alone";
      } else {
        EXPECT_EQ(w.size(), carried + window);
      }
    }
    EXPECT_GT(taken, 90u);
  }
}

}  // namespace
}  // namespace seer::predictor::seqcheck
