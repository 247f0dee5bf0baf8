// The watch engine (predictor/engines/watch/): races the recording caught, read
// out of kWatchSample/kWatchHit pairs, grouped by their two pcs; value changes
// no thread was seen making, and hits whose sample is missing, only counted.
#include <gtest/gtest.h>

#include <vector>

#include "tests/support/engine_runner.h"
#include "tests/support/trace_builder.h"

namespace seer::test {
namespace {

uint8_t M(WatchAccess a) { return static_cast<uint8_t>(a); }
uint8_t M(WatchHit h) { return static_cast<uint8_t>(h); }

std::vector<Event> Indexed(std::vector<Event> events) {
  for (size_t i = 0; i < events.size(); ++i) events[i].index = i;
  return events;
}

double Stat(const predictor::Findings& f, const std::string& name) {
  for (const predictor::AnalysisStats& s : f.stats)
    for (const auto& [key, value] : s.counters)
      if (s.analysis == "watch" && key == name) return value;
  return -1;
}

TEST(WatchEngine, AHitAfterItsSampleIsACaughtRace) {
  const predictor::Findings f = RunEngine(
      "watch", Indexed({
                   MakeEvent(0, EventKind::kThreadBegin, 0),
                   MakeEvent(1, EventKind::kThreadBegin, 0),
                   // Thread 0 sampled its read of 8 bytes at 0x1000 (pc 0x400); thread 1 wrote them (pc 0x500).
                   MakeEvent(0, EventKind::kWatchSample, 0x1000, 0x400, 8, M(WatchAccess::kRead)),
                   MakeEvent(0, EventKind::kWatchHit, 1, 0x500, 1, M(WatchHit::kWrite)),
                   // The same pair again: one group, two occurrences.
                   MakeEvent(0, EventKind::kWatchSample, 0x1000, 0x400, 8, M(WatchAccess::kRead)),
                   MakeEvent(0, EventKind::kWatchHit, 1, 0x500, 1, M(WatchHit::kWrite)),
                   // Thread 1 sampled a write, thread 0 read the bytes.
                   MakeEvent(1, EventKind::kWatchSample, 0x2000, 0x600, 4, M(WatchAccess::kWrite)),
                   MakeEvent(1, EventKind::kWatchHit, 0, 0x700, 1, M(WatchHit::kRead)),
               }));
  ASSERT_EQ(f.races.size(), 1u);
  const predictor::RaceResult& r = f.races[0];
  EXPECT_EQ(r.engine, "watch");
  EXPECT_EQ(r.guarantee, predictor::Guarantee::kCaught);
  ASSERT_EQ(r.pairs.size(), 2u);
  const predictor::RacePair& a = r.pairs[0];
  EXPECT_EQ(a.occurrences, 2u);
  EXPECT_EQ(a.first.tid, 0u);
  EXPECT_EQ(a.first.kind, EventKind::kRead);
  EXPECT_EQ(a.first.pc, 0x400u);
  EXPECT_EQ(a.first.object, 0x1000u);
  EXPECT_EQ(a.first.size, 8u);
  EXPECT_EQ(a.second.tid, 1u);
  EXPECT_EQ(a.second.kind, EventKind::kWrite);
  EXPECT_EQ(a.second.pc, 0x500u);
  EXPECT_EQ(a.second.object, 0x1000u);
  EXPECT_EQ(a.second.index, 3u);  // the first hit's place in the trace
  const predictor::RacePair& b = r.pairs[1];
  EXPECT_EQ(b.first.tid, 1u);
  EXPECT_EQ(b.first.kind, EventKind::kWrite);
  EXPECT_EQ(b.second.tid, 0u);
  EXPECT_EQ(b.second.kind, EventKind::kRead);
  EXPECT_EQ(b.second.size, 4u);
  EXPECT_EQ(Stat(f, "caught races"), 3);
}

// A read-write hardware watchpoint with the value unchanged cannot tell a read
// from a write: the second access says so (kWatchHit), not "write".
TEST(WatchEngine, AReadOrWriteHitKeepsItsDoubt) {
  const predictor::Findings f =
      RunEngine("watch", Indexed({
                             MakeEvent(0, EventKind::kWatchSample, 0x10, 1, 8, M(WatchAccess::kWrite)),
                             MakeEvent(0, EventKind::kWatchHit, 1, 2, 1, M(WatchHit::kReadOrWrite)),
                         }));
  ASSERT_EQ(f.races[0].pairs.size(), 1u);
  EXPECT_EQ(f.races[0].pairs[0].second.kind, EventKind::kWatchHit);
}

// A value that changed while the sample was held, no watchpoint naming the
// writer (an unmodified program's samples): a caught race whose other side is
// kThreadNotSeen, grouped by the sampled location. A hit whose sample is not
// in the trace (a cut trace) is counted, not reported.
TEST(WatchEngine, UnseenWritesAreReportedAndOrphanHitsCounted) {
  const predictor::Findings f = RunEngine(
      "watch", Indexed({
                   MakeEvent(0, EventKind::kWatchSample, 0x10, 1, 8, M(WatchAccess::kRead)),
                   MakeEvent(0, EventKind::kWatchHit, ~uint64_t{0}, 0, 0, M(WatchHit::kUnseenWrite)),
                   MakeEvent(1, EventKind::kWatchHit, 0, 2, 1, M(WatchHit::kWrite)),  // its sample is not there
                   // Another thread's sample does not pair with thread 0's hit.
                   MakeEvent(1, EventKind::kWatchSample, 0x20, 3, 8, M(WatchAccess::kRead)),
                   MakeEvent(0, EventKind::kWatchHit, 1, 4, 1, M(WatchHit::kWrite)),
                   // The same location sampled again, the value changed again.
                   MakeEvent(0, EventKind::kWatchSample, 0x10, 1, 8, M(WatchAccess::kRead)),
                   MakeEvent(0, EventKind::kWatchHit, ~uint64_t{0}, 0, 0, M(WatchHit::kUnseenWrite)),
               }));
  ASSERT_EQ(f.races.size(), 1u);
  ASSERT_EQ(f.races[0].pairs.size(), 1u);
  const predictor::RacePair& p = f.races[0].pairs[0];
  EXPECT_EQ(p.first.tid, 0u);
  EXPECT_EQ(p.first.pc, 1u);
  EXPECT_EQ(p.first.object, 0x10u);
  EXPECT_EQ(p.first.kind, EventKind::kRead);
  EXPECT_EQ(p.second.tid, predictor::kThreadNotSeen);
  EXPECT_EQ(p.second.kind, EventKind::kWrite);
  EXPECT_EQ(p.second.object, 0x10u);
  EXPECT_EQ(p.occurrences, 2u);
  EXPECT_EQ(f.races[0].racy_locations, 1u);  // the sampled pc; the writer has none
  EXPECT_EQ(Stat(f, "value changed, writer not seen"), 2);
  EXPECT_EQ(Stat(f, "hits without their sample"), 2);
  EXPECT_EQ(Stat(f, "caught races"), 0);
}

// The other engines see no access in these events: nothing to predict from.
TEST(WatchEngine, OtherEnginesIgnoreWatchEvents) {
  const std::vector<Event> events = Indexed({
      MakeEvent(0, EventKind::kWatchSample, 0x10, 1, 8, M(WatchAccess::kWrite)),
      MakeEvent(0, EventKind::kWatchHit, 1, 2, 1, M(WatchHit::kWrite)),
      MakeEvent(1, EventKind::kWatchSample, 0x10, 3, 8, M(WatchAccess::kWrite)),
  });
  for (const char* engine : {"hb", "shb", "wcp", "lockset", "w3-linear"}) {
    const predictor::Findings f = RunEngine(engine, events);
    ASSERT_EQ(f.races.size(), 1u) << engine;
    EXPECT_TRUE(f.races[0].pairs.empty()) << engine;
  }
}

}  // namespace
}  // namespace seer::test
