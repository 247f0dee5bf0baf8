// The deadlock engine's pre-check (predictor/seqcheck/lock_order.h): the
// cycles it sees on small examples, and on random traces and their windows
// (carried acquires first) that it is a necessary condition of LockGraph's
// cycles, so skipping the model where it sees none loses no deadlock.
#include "predictor/seqcheck/lock_order.h"

#include <gtest/gtest.h>

#include "predictor/seqcheck/lock_graph.h"
#include "predictor/seqcheck/trace_model.h"
#include "predictor/seqcheck/trace_windows.h"
#include "tests/support/random_trace.h"
#include "tests/support/trace_builder.h"

namespace seer::predictor::seqcheck {
namespace {

using test::TraceBuilder;

std::vector<Event> Std(const std::vector<std::string>& lines) { return TraceBuilder().Std(lines).events(); }

TEST(LockOrder, OppositeNestingIsACycle) {
  EXPECT_TRUE(LockOrderHasCycle(Std({"T1|acq(A)|1", "T1|acq(B)|2", "T1|rel(B)|3", "T1|rel(A)|4",  //
                                     "T2|acq(B)|5", "T2|acq(A)|6", "T2|rel(A)|7", "T2|rel(B)|8"})));
}

TEST(LockOrder, OneNestingOrderIsNone) {
  EXPECT_FALSE(LockOrderHasCycle(Std({"T1|acq(A)|1", "T1|acq(B)|2", "T1|rel(B)|3", "T1|rel(A)|4",  //
                                      "T2|acq(A)|5", "T2|acq(B)|6", "T2|rel(B)|7", "T2|rel(A)|8",  //
                                      "T2|acq(B)|9", "T2|rel(B)|10", "T1|acq(A)|11", "T1|rel(A)|12"})));
}

TEST(LockOrder, ReleasedLocksAndReentryMakeNoEdge) {
  // T2 takes A only after releasing B; T1's second A is a nested re-entry.
  EXPECT_FALSE(LockOrderHasCycle(Std({"T1|acq(A)|1", "T1|acq(A)|2", "T1|acq(B)|3", "T1|rel(B)|4", "T1|rel(A)|5",
                                      "T1|rel(A)|6", "T2|acq(B)|7", "T2|rel(B)|8", "T2|acq(A)|9", "T2|rel(A)|10"})));
  // A re-entered lock stays held until its outermost release: B after the inner release of A is nested in A.
  EXPECT_TRUE(LockOrderHasCycle(Std({"T1|acq(A)|1", "T1|acq(A)|2", "T1|rel(A)|3", "T1|acq(B)|4", "T1|rel(B)|5",
                                     "T1|rel(A)|6", "T2|acq(B)|7", "T2|acq(A)|8", "T2|rel(A)|9", "T2|rel(B)|10"})));
}

TEST(LockOrder, TrylocksAreHeldButNeverRequests) {
  // memcached's way: the opposite order is taken only by trylock, which cannot block.
  EXPECT_FALSE(LockOrderHasCycle(Std({"T1|acq(A)|1", "T1|acq(B how=try)|2", "T1|rel(B)|3", "T1|rel(A)|4",  //
                                      "T2|acq(B)|5", "T2|acq(A)|6", "T2|rel(A)|7", "T2|rel(B)|8"})));
  EXPECT_FALSE(LockOrderHasCycle(Std({"T1|acq(A)|1", "T1|acq(B how=timed)|2", "T1|rel(B)|3", "T1|rel(A)|4",  //
                                      "T2|acq(B)|5", "T2|acq(A)|6", "T2|rel(A)|7", "T2|rel(B)|8"})));
  // What a trylock got is held: a blocking request under it is an edge.
  EXPECT_TRUE(LockOrderHasCycle(Std({"T1|acq(A how=try)|1", "T1|acq(B)|2", "T1|rel(B)|3", "T1|rel(A)|4",  //
                                     "T2|acq(B)|5", "T2|acq(A)|6", "T2|rel(A)|7", "T2|rel(B)|8"})));
}

TEST(LockOrder, CondWaitsReleaseAndRetakeTheirMutex) {
  TraceBuilder b;
  b.Std({"T1|acq(A)|1", "T1|acq(B)|2", "T1|rel(B)|3", "T1|rel(A)|4"});  // A -> B
  const uint64_t a = b.events()[0].object, m = b.events()[1].object;
  // T2 holds B, waits on a condition with B (releasing it), takes A, and the
  // wait's return re-takes B while A is held: not a request (it waits on the
  // condition, as LockGraph has it), so no edge; no cycle.
  b.Add("T2", EventKind::kAcquire, m, 10)
      .Add("T2", EventKind::kCondWaitBegin, 77, 11, m)
      .Add("T2", EventKind::kAcquire, a, 12)
      .Add("T2", EventKind::kCondWaitEnd, 77, 13, m)
      .Add("T2", EventKind::kRelease, m, 14)
      .Add("T2", EventKind::kRelease, a, 15);
  EXPECT_FALSE(LockOrderHasCycle(b.events()));
  // T3's wait releases B before it takes A: no edge B -> A.
  b.Add("T3", EventKind::kAcquire, m, 20)
      .Add("T3", EventKind::kCondWaitBegin, 78, 21, m)
      .Add("T3", EventKind::kAcquire, a, 22)
      .Add("T3", EventKind::kRelease, a, 23);
  EXPECT_FALSE(LockOrderHasCycle(b.events()));
  // T4's wait returns, re-taking B, and then T4 takes A while holding B: B -> A, a cycle.
  b.Add("T4", EventKind::kCondWaitEnd, 79, 24, m).Add("T4", EventKind::kAcquire, a, 25);
  EXPECT_TRUE(LockOrderHasCycle(b.events()));
}

// LockGraph's cycles on `window` (`carried` acquires first), as the deadlock engine asks for them.
bool GraphHasCycle(std::vector<Event> window, size_t carried) {
  TraceModel model(std::move(window), carried);
  return !LockGraph(model).LockCycles(8, 1).empty();
}

TEST(LockOrder, NecessaryForLockGraphCyclesOnRandomTracesAndWindows) {
  uint64_t graph_cycles = 0, neither = 0, windows = 0;
  for (uint64_t seed = 0; seed < 3000; ++seed) {
    test::RandomTraceOptions o;
    o.threads = 2 + seed % 3;
    o.events = 16 + seed % 60;
    o.locks = 2 + seed % 4;
    o.max_nesting = 2 + seed % 3;
    o.rwlocks = seed % 4 == 1;
    o.nonblocking = seed % 5 == 2 ? 0.3 : 0;
    o.signals = seed % 7 == 3;
    o.fork_join = seed % 3 != 0;
    const std::vector<Event> trace = test::RandomTrace(o, seed);
    // The whole trace, and its windows of a few events with the held locks carried in.
    std::vector<std::pair<std::vector<Event>, size_t>> cases = {{trace, 0}};
    TraceWindows cut(4 + seed % 9);
    for (size_t at = 0; at < trace.size();) {
      size_t used = 0;
      const bool full = cut.Add(trace.data() + at, trace.size() - at, &used);
      at += used;
      size_t carried = 0;
      if (full || at == trace.size()) {
        std::vector<Event> w = cut.Take(&carried);
        cases.push_back({std::move(w), carried});
      }
    }
    for (auto& [events, carried] : cases) {
      ++windows;
      const bool here = LockOrderHasCycle(events);
      const bool graph = GraphHasCycle(events, carried);
      ASSERT_TRUE(here || !graph) << "seed " << seed << ": LockGraph has a cycle the pre-check does not see";
      // With at most 5 locks (LockCycles looks for up to 8) the two see the same edges.
      EXPECT_EQ(here, graph) << "seed " << seed << ": a cycle only the pre-check sees";
      graph_cycles += graph;
      neither += !here;
    }
  }
  // Not vacuous: both answers occur.
  EXPECT_GT(graph_cycles, 100u);
  EXPECT_GT(neither, 1000u);
  RecordProperty("windows", static_cast<int>(windows));
}

}  // namespace
}  // namespace seer::predictor::seqcheck
