// wcp's queue memory bound (AnalysisOptions::wcp_queue_bytes): over the budget
// a lock's older queued sections are folded into one clock that a lagging
// thread receives whole (docs/analyses.md, "wcp"). Folding orders at least what
// rule (b) would, so the races found are a subset of the unfolded run's, the
// report counts the folded sections, and within the budget nothing changes.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <limits>
#include <set>
#include <utility>

#include "tests/predictor/engines/engine_support.h"
#include "tests/support/workload_trace.h"

namespace seer::test {
namespace {

constexpr const char* kFoldedCounter = "critical sections over the queue memory bound, folded (may miss races)";

struct WcpRun {
  predictor::RaceResult races;
  double folded = 0;  // the report's counter; 0 when the report has none
  bool has_counter = false;
};

WcpRun RunWcp(const std::vector<Event>& events, const TraceInfo& info, uint64_t queue_bytes) {
  predictor::AnalysisOptions options;
  options.wcp_queue_bytes = queue_bytes;
  std::unique_ptr<predictor::Engine> engine = predictor::FindEngine("wcp")->create(options);
  EXPECT_TRUE(engine->Begin(info).ok());
  for (size_t i = 0; i < events.size(); i += 4096)
    engine->Process(events.data() + i, std::min<size_t>(4096, events.size() - i));
  predictor::Findings findings;
  EXPECT_TRUE(engine->Finish(&findings).ok());
  WcpRun run;
  if (findings.races.size() == 1) run.races = findings.races[0];
  for (const predictor::AnalysisStats& s : findings.stats) {
    if (s.analysis != "wcp") continue;
    for (const auto& [name, value] : s.counters)
      if (name == kFoldedCounter) {
        run.folded = value;
        run.has_counter = true;
      }
  }
  return run;
}

std::set<std::pair<uint64_t, uint64_t>> PcPairs(const predictor::RaceResult& r) {
  std::set<std::pair<uint64_t, uint64_t>> out;
  for (const predictor::RacePair& p : r.pairs)
    out.insert(std::minmax(p.first.pc, p.second.pc));  // unordered, as the collector keys them
  return out;
}

TEST(WcpFold, DefaultBudgetIsHalfAGigabyte) {
  EXPECT_EQ(predictor::AnalysisOptions().wcp_queue_bytes, uint64_t{512} << 20);
}

// T2 never learns T1's acquire, so rule (b) never orders T1's section before
// T2's releases and WCP reports the two writes of x. Folding T1's section
// (T2's read position is behind it) hands T2 its release clock at T2's next
// release: the race is gone, and the report says sections were folded.
TEST(WcpFold, FoldingOrdersMoreAndCanLoseARace) {
  TraceBuilder b;
  b.Std({"T1|acq(L)|10", "T1|w(X)|11", "T1|rel(L)|12",  // section A
         "T2|acq(L)|20", "T2|rel(L)|21",                // B: A is folded after its release
         "T2|acq(L)|22", "T2|rel(L)|23",                // T2 receives the folded clock here
         "T2|w(X)|24"});
  const WcpRun unfolded = RunWcp(b.events(), b.Info(), std::numeric_limits<uint64_t>::max());
  const WcpRun folded = RunWcp(b.events(), b.Info(), 1);
  EXPECT_FALSE(unfolded.has_counter);
  EXPECT_EQ(PcPairs(unfolded.races), (std::set<std::pair<uint64_t, uint64_t>>{{11, 24}}));
  EXPECT_TRUE(folded.has_counter);
  EXPECT_GT(folded.folded, 0);
  EXPECT_TRUE(folded.races.pairs.empty());
}

// Program-shaped random traces: a small budget folds (and says so) and finds a
// subset of the races; an unlimited budget gives exactly the default's report.
TEST(WcpFold, SmallBudgetFindsASubsetLargeBudgetChangesNothing) {
  uint64_t traces_folded = 0, traces_losing_races = 0;
  for (uint64_t seed = 1; seed <= 40; ++seed) {
    WorkloadOptions o;
    o.threads = 3 + static_cast<uint32_t>(seed % 6);
    o.locks = 1 + static_cast<uint32_t>(seed % 3);
    o.variables = 20;
    o.events = 3000;
    const std::vector<Event> events = WorkloadTrace(o, seed);
    TraceInfo info;
    const std::string where = "seed " + std::to_string(seed);
    const WcpRun by_default = RunWcp(events, info, predictor::AnalysisOptions().wcp_queue_bytes);
    const WcpRun unlimited = RunWcp(events, info, std::numeric_limits<uint64_t>::max());
    const WcpRun small = RunWcp(events, info, 512);
    EXPECT_FALSE(by_default.has_counter) << where;
    EXPECT_FALSE(unlimited.has_counter) << where;
    EXPECT_EQ(PcPairs(unlimited.races), PcPairs(by_default.races)) << where;
    EXPECT_EQ(unlimited.races.racy_events, by_default.races.racy_events) << where;
    EXPECT_EQ(unlimited.races.racy_locations, by_default.races.racy_locations) << where;

    const auto all = PcPairs(by_default.races), kept = PcPairs(small.races);
    for (const auto& p : kept) EXPECT_TRUE(all.count(p)) << where << ": a pair only the folded run reports";
    EXPECT_LE(small.races.racy_events, by_default.races.racy_events) << where;
    if (small.has_counter) {
      EXPECT_GT(small.folded, 0) << where;
      ++traces_folded;
    }
    if (kept.size() < all.size()) ++traces_losing_races;
  }
  // The budget must actually bite, or the subset checks above test nothing.
  EXPECT_GE(traces_folded, 30u);
  std::printf("wcp fold: %llu of 40 traces folded, %llu lost a race\n", static_cast<unsigned long long>(traces_folded),
              static_cast<unsigned long long>(traces_losing_races));
}

}  // namespace
}  // namespace seer::test
