// Properties on thousands of random well-formed traces: every finding's witness
// validates (the checker is independent of the closure), and what SeqCheck
// finds with prefix reduction it also finds without it on deadlocks of two threads,
// and no atomicity violation has an intruder that hard orders force between its accesses,
// nor accesses that are not one region.
// Some traces have frees and allocations, and some overlapping byte ranges.
#include <gtest/gtest.h>

#include <map>

#include "predictor/seqcheck/atomicity.h"
#include "predictor/seqcheck/deadlocks.h"
#include "predictor/seqcheck/hard_order.h"
#include "predictor/seqcheck/races.h"
#include "predictor/seqcheck/witness_checker.h"
#include "tests/oracle/tiny_traces.h"
#include "tests/predictor/seqcheck/byte_variables.h"
#include "tests/support/random_trace.h"
#include "tests/support/test_scale.h"

namespace seer::predictor::seqcheck {
namespace {

test::RandomTraceOptions Options(uint64_t seed) {
  test::RandomTraceOptions o;
  o.threads = 2 + seed % 3;
  o.events = 12 + seed % 40;
  o.locks = 2 + seed % 3;
  o.variables = 1 + seed % 3;
  o.max_nesting = 2 + seed % 2;
  o.rwlocks = seed % 4 == 1;
  o.atomics = seed % 5 == 2;
  o.signals = seed % 7 == 3;
  o.fork_join = seed % 3 != 0;
  o.frees = seed % 4 == 2 ? 0.2 : 0;
  return o;
}

// Half the fork/join traces end with main reading variable 0 after its joins, the
// hand-off of most fork/join programs: main's access to it before a fork and this
// read have the children's writes forced between them.
// One seed in three turns accesses, allocs and frees into overlapping byte
// ranges (tests/oracle/tiny_traces.h).
std::vector<Event> Trace(uint64_t seed) {
  const test::RandomTraceOptions o = Options(seed);
  std::vector<Event> trace = test::RandomTrace(o, seed);
  if (seed % 3 == 1) trace = test::WithRandomRanges(std::move(trace), seed);
  if (o.fork_join && seed % 2 == 0) {
    Event e;
    e.index = trace.size();
    e.tid = 0;
    e.kind = EventKind::kRead;
    e.object = 0;
    e.aux = 1;
    e.pc = 999'999;
    trace.push_back(e);
  }
  return trace;
}

// Whether trace[e1] and trace[e2] (one thread's, e1 first) are one region, by
// docs/seqcheck.md ("What a region is") for traces without marked blocks,
// condition waits or function events, stated on the raw events: the locks the
// thread holds after each of its events, counted here, not matched by the model.
bool OneRegionByDefinition(const std::vector<Event>& trace, size_t e1, size_t e2) {
  const uint32_t t = trace[e1].tid;
  std::map<uint64_t, int> held;  // lock -> holds
  std::map<uint64_t, int> at_e1;
  // Per event of t after e1 up to e2: the lock it ends or starts a section of.
  struct Change {
    size_t index;
    uint64_t lock;
    bool starts;
  };
  std::vector<Change> changes;
  for (size_t i = 0; i <= e2; ++i) {
    const Event& e = trace[i];
    if (e.tid != t) continue;
    if (i == e1) at_e1 = held;
    if (e.kind == EventKind::kAcquire && held[e.object]++ == 0 && i > e1) changes.push_back({i, e.object, true});
    if (e.kind == EventKind::kRelease && held[e.object] > 0 && --held[e.object] == 0 && i > e1)
      changes.push_back({i, e.object, false});
  }
  auto ends_before_e2 = [&](uint64_t lock) {
    for (const Change& c : changes)
      if (c.lock == lock && !c.starts) return true;
    return false;
  };
  for (const auto& [lock, holds] : at_e1) {
    if (holds == 0) continue;
    if (!ends_before_e2(lock)) return true;  // held throughout
    // A read used in the next section of the lock: its first section after the
    // release lasts through e2.
    const bool read = trace[e1].kind == EventKind::kRead || trace[e1].kind == EventKind::kAtomicLoad;
    const bool write = trace[e2].kind != EventKind::kRead && trace[e2].kind != EventKind::kAtomicLoad;
    if (!read || (!write && trace[e1].pc == trace[e2].pc)) continue;
    int seen = 0;  // 0: before the release, 1: released, 2: in the next section, 3: past it
    for (const Change& c : changes) {
      if (c.lock != lock) continue;
      if (seen == 0 && !c.starts)
        seen = 1;
      else if (seen == 1 && c.starts)
        seen = 2;
      else if (seen == 2 && !c.starts)
        seen = 3;
    }
    if (seen == 2) return true;
  }
  for (const Change& c : changes)
    if (!c.starts) return false;
  return true;  // no release between them
}

TEST(SeqCheckRandom, EveryWitnessValidates) {
  uint64_t deadlocks = 0, violations = 0, in_regions = 0, outside_regions = 0, races = 0, checks = 0, forced = 0;
  for (uint64_t seed = 0; seed < uint64_t(test::Iterations(2000)); ++seed) {
    std::vector<Event> trace = Trace(seed);
    TraceModel m(trace);
    WitnessChecker checker(trace);
    HardReach hard(m);
    SeqCheckStats stats;
    for (bool reduce : {true, false}) {
      DeadlockOptions d;
      d.feasibility.prefix_reduction = reduce;
      for (const Deadlock& x : PredictDeadlocks(m, d, &stats)) {
        ASSERT_TRUE(x.witness.validated);
        ASSERT_TRUE(checker.CheckDeadlock(x).ok()) << "seed " << seed;
        ++deadlocks;
      }
      // With regions (the default) and without (any pair in the window): the
      // hard-order property holds for the candidates of both.
      for (bool regions : {true, false}) {
        AtomicityOptions a;
        a.feasibility.prefix_reduction = reduce;
        a.regions = regions;
        for (const AtomicityViolation& v : PredictAtomicityViolations(m, a, &stats)) {
          ASSERT_TRUE(checker.CheckAtomicity(v).ok()) << "seed " << seed;
          const uint32_t e1 = m.NodeOfIndex(v.local_first.index), e = m.NodeOfIndex(v.remote.index),
                         e2 = m.NodeOfIndex(v.local_second.index);
          if (regions) {
            ASSERT_TRUE(OneRegionByDefinition(trace, e1, e2)) << "seed " << seed << ": no region";
            ++in_regions;
          } else if (!OneRegionByDefinition(trace, e1, e2)) {
            ++outside_regions;  // what regions leave out: the definition's check can fail
          }
          if (e1 < e && e < e2) {
            hard.ScanFrom(e1, e2);
            hard.ScanTo(e2, e1);
            ASSERT_FALSE(hard.From(e) && hard.To(e)) << "seed " << seed << ": a forced intruder was reported";
          }
          ++violations;
        }
      }
      // Every conflicting pair of plain accesses and frees as a race candidate.
      FeasibilityOptions f;
      f.prefix_reduction = reduce;
      FeasibilityChecker fc(m, f);
      const test::ByteVariables vars(trace);
      for (uint32_t i = 0; i < m.size(); ++i)
        for (uint32_t j = i + 1; j < m.size(); ++j) {
          if (!vars.PlainConflict(i, j)) continue;
          const Event &a1 = m.event(i), &a2 = m.event(j);
          RaceConfirmation c = ConfirmRace(m, &fc, i, j, &stats);
          if (c.confirmed) {
            ASSERT_TRUE(checker.CheckRace(c.witness.schedule, EventRef::Of(a1), EventRef::Of(a2)).ok());
            ++races;
          }
        }
    }
    ASSERT_EQ(stats.invalid_witnesses, 0u) << "seed " << seed;
    checks += stats.checks;
    forced += stats.forced;
  }
  // The properties must have been exercised, not vacuously true.
  EXPECT_GT(deadlocks, test::AtLeast(50));
  EXPECT_GT(violations, test::AtLeast(50));
  EXPECT_GT(in_regions, test::AtLeast(50));
  EXPECT_GT(outside_regions, test::AtLeast(50));
  EXPECT_GT(races, test::AtLeast(500));
  EXPECT_GT(forced, test::AtLeast(50));
  std::printf(
      "random traces: %llu deadlocks, %llu atomicity violations (%llu in regions, %llu of the old ones not; %llu "
      "forced "
      "candidates dropped), "
      "%llu races confirmed, %llu checks\n",
      static_cast<unsigned long long>(deadlocks), static_cast<unsigned long long>(violations),
      static_cast<unsigned long long>(in_regions), static_cast<unsigned long long>(outside_regions),
      static_cast<unsigned long long>(forced), static_cast<unsigned long long>(races),
      static_cast<unsigned long long>(checks));
}

// TraceModel::ForEachOpenAt lists, in acquire order, exactly the sections open
// at a position (acquired before it, released at or after it, or never): on
// traces nesting up to 40 locks deep, so that its short walk back also gives
// way to the max-tree, and cut short, so that some sections are never released.
TEST(SeqCheckRandom, OpenSectionsAreThoseAcquiredBeforeAndReleasedAtOrAfter) {
  for (uint64_t seed = 0; seed < uint64_t(test::Iterations(300)); ++seed) {
    test::RandomTraceOptions o;
    o.threads = 2 + seed % 3;
    o.events = 50 + seed % 400;
    o.locks = 2 + seed % 48;
    o.max_nesting = 1 + seed % 40;
    o.rwlocks = seed % 4 == 1;
    o.fork_join = seed % 3 != 0;
    std::vector<Event> trace = test::RandomTrace(o, seed);
    trace.resize(trace.size() - (seed % 5) * trace.size() / 10);  // some sections never released
    const TraceModel m(trace);
    for (uint32_t t = 0; t < m.threads(); ++t) {
      for (uint32_t c = 0; c <= m.thread_length(t); ++c) {
        std::vector<uint32_t> expected, got;
        for (uint32_t p = 0; p < c; ++p) {
          const Node& n = m.node(m.At(t, p));
          if ((n.flags & kAcquires) && (n.match == kNone || m.node(n.match).pos >= c)) expected.push_back(m.At(t, p));
        }
        m.ForEachOpenAt(t, c, [&](uint32_t a) { got.push_back(a); });
        ASSERT_EQ(got, expected) << "seed " << seed << " thread " << t << " position " << c;
      }
    }
  }
}

}  // namespace
}  // namespace seer::predictor::seqcheck
