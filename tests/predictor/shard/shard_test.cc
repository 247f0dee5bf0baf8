// `seer analyze --shard I/N` then `seer merge` (predictor/shard.h) reports
// what one run reports: on generated and random traces, with SeqCheck windows
// small enough that there are many and check budgets small enough that they
// run out (the merge then decides a window again), the text and JSON reports
// of the merge of 1, 2 and 3 shards are one run's, byte for byte. Every part
// goes through its file's encoding on the way (predictor/partial_file.h).
#include "predictor/shard.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <initializer_list>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "gen/generator.h"
#include "predictor/analyze.h"
#include "predictor/partial_file.h"
#include "predictor/report/report.h"
#include "seer/trace.h"
#include "tests/support/random_trace.h"
#include "tests/support/same_reports.h"
#include "tests/support/temp_dir.h"
#include "tests/support/test_scale.h"

namespace seer::predictor {
namespace {

using test::FirstDifference;
using test::Stat;

struct Reports {
  std::string text;
  std::string json;
  Findings findings;
};

// Every engine but the exact w3 (quadratic: the default set has its linear variant).
std::vector<const EngineSpec*> AllEngines() {
  std::vector<const EngineSpec*> specs;
  for (const EngineSpec& spec : Engines())
    if (spec.name != "w3") specs.push_back(&spec);
  return specs;
}

std::vector<std::string> Names(const std::vector<const EngineSpec*>& specs) {
  std::vector<std::string> names;
  for (const EngineSpec* spec : specs) names.push_back(spec->name);
  return names;
}

Reports ReportsOf(const AnalysisRun& run, const std::vector<std::string>& names) {
  return {TextReport(*run.reader, run.findings, names, nullptr), JsonReport(*run.reader, run.findings, names, nullptr),
          run.findings};
}

Reports OneRun(const std::string& path, const AnalysisOptions& options) {
  AnalysisRun run;
  Status s = RunAnalyses(path, AllEngines(), options, &run);
  EXPECT_TRUE(s.ok()) << path << ": " << s.ToString();
  if (!s.ok()) return {};
  return ReportsOf(run, Names(AllEngines()));
}

// N shards (the odd ones with two jobs), each part encoded and decoded, merged;
// *decided_again counts the windows the merge decided again.
Reports Sharded(const std::string& path, AnalysisOptions options, uint32_t n, uint64_t* decided_again) {
  std::vector<PartialResult> parts;
  std::vector<std::string> names;
  for (uint32_t i = 0; i < n; ++i) {
    options.jobs = i % 2 == 1 ? 2 : 1;
    PartialResult part;
    Status s = RunShard(path, "", AllEngines(), options, {i, n}, &part);
    EXPECT_TRUE(s.ok()) << path << " shard " << i << "/" << n << ": " << s.ToString();
    if (!s.ok()) return {};
    names.push_back("part" + std::to_string(i));
    parts.emplace_back();
    s = DecodePartial(names.back(), EncodePartial(part), &parts.back());
    EXPECT_TRUE(s.ok()) << s.ToString();
  }
  // Any order of the parts.
  std::reverse(parts.begin(), parts.end());
  std::reverse(names.begin(), names.end());
  AnalysisRun run;
  Status s = MergeParts(parts, names, "", &run, decided_again);
  EXPECT_TRUE(s.ok()) << path << " merge of " << n << ": " << s.ToString();
  if (!s.ok()) return {};
  return ReportsOf(run, Names(AllEngines()));
}

class ShardTest : public testing::Test {
 protected:
  void SetUp() override {
    dir_ = test::MakeTempDir("shard");
    ASSERT_FALSE(dir_.empty());
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  Findings ExpectSameReports(const std::string& path, const AnalysisOptions& options, const std::string& what) {
    const Reports one = OneRun(path, options);
    for (uint32_t n : {1u, 2u, 3u}) {
      const Reports merged = Sharded(path, options, n, &decided_again_);
      EXPECT_EQ(FirstDifference(merged.json, one.json), "") << what << ", " << n << " shards, JSON";
      EXPECT_EQ(FirstDifference(merged.text, one.text), "") << what << ", " << n << " shards, text";
    }
    return one.findings;
  }

  std::string dir_;
  uint64_t decided_again_ = 0;
};

TEST_F(ShardTest, GeneratedTracesMergeToOneRunsReports) {
  const int traces = test::Iterations(16);
  uint64_t deadlocks = 0, violations = 0, budget_spent = 0, multi_window = 0;
  for (int seed = 1; seed <= traces; ++seed) {
    std::mt19937_64 rng(static_cast<uint64_t>(seed));
    const std::string path = dir_ + "/g" + std::to_string(seed) + ".seer";
    AnalysisOptions options;
    ASSERT_TRUE(test::WriteVariedGeneratedTrace(path, static_cast<uint64_t>(seed), 6000, &rng, &options).ok());
    const Findings f = ExpectSameReports(path, options, "seed " + std::to_string(seed));
    deadlocks += f.deadlocks.size();
    violations += f.atomicity.size();
    if (Stat(f, "deadlock", "checks") == static_cast<double>(options.deadlock_max_checks) &&
        Stat(f, "deadlock", "windows") > 1)
      ++budget_spent;
    if (Stat(f, "deadlock", "windows") > 1) ++multi_window;
  }
  // Not vacuous: findings to join, windows to spread, budgets that ran out
  // over several windows (where a merge decides a window again).
  EXPECT_GT(deadlocks, test::AtLeast(10));
  EXPECT_GT(violations, test::AtLeast(50));
  EXPECT_GT(budget_spent, test::AtLeast(1));
  EXPECT_GT(multi_window, test::AtLeast(5));
  EXPECT_GT(decided_again_, test::AtLeast(2));
}

TEST_F(ShardTest, RandomTracesMergeToOneRunsReports) {
  const int traces = test::Iterations(80);
  uint64_t findings = 0;
  for (int seed = 1; seed <= traces; ++seed) {
    const std::string path = dir_ + "/r" + std::to_string(seed) + ".seer";
    AnalysisOptions options;
    ASSERT_TRUE(test::WriteVariedRandomTrace(path, seed, &options).ok());
    const Findings f = ExpectSameReports(path, options, "random seed " + std::to_string(seed));
    findings += f.deadlocks.size() + f.atomicity.size();
    for (const RaceResult& race : f.races) findings += race.pairs.size();
  }
  EXPECT_GT(findings, test::AtLeast(250));
}

// Who runs what: every shard its share of the whole-trace analyses and of
// each windowed analysis's windows, for any N (2 windowed analyses and 2
// shards once gave one shard every deadlock window, the other every atomicity one).
TEST(ShardPlanTest, EveryShardHasItsShareOfEachAnalysis) {
  for (uint32_t n : {1u, 2u, 3u, 4u, 7u}) {
    std::vector<int> analyses(n, 0);
    for (uint64_t j = 0; j < 7u * n; ++j) ++analyses[ShardOfAnalysis(j, n)];
    for (int count : analyses) EXPECT_EQ(count, 7) << n << " shards";
    for (uint64_t w = 0; w < 2; ++w) {
      std::vector<int> windows(n, 0);
      for (uint64_t k = 0; k < 10u * n; ++k) ++windows[ShardOfWindow(7, w, k, n)];
      for (int count : windows) EXPECT_EQ(count, 10) << n << " shards, windowed analysis " << w;
    }
  }
  EXPECT_EQ(ShardOfWindow(7, 0, 0, 4), 3u);  // after the 7 analyses: shards 0..3, 0..2
  EXPECT_EQ(ShardOfWindow(7, 1, 0, 4), 0u);
}

// deadlock's windows are one shard's, which alone runs it (its budget is
// spent in the first windows: seqcheck::SpreadsWindowsOverShards);
// atomicity's are every shard's.
TEST(ShardPlanTest, OneShardDecidesEveryDeadlockWindow) {
  const std::string dir = test::MakeTempDir("shard-plan");
  ASSERT_FALSE(dir.empty());
  const std::string path = dir + "/g.seer";
  std::mt19937_64 rng(3);
  AnalysisOptions options;
  ASSERT_TRUE(test::WriteVariedGeneratedTrace(path, 3, 6000, &rng, &options).ok());
  options.seqcheck_window = 500;
  constexpr uint32_t kShards = 3;
  std::map<std::string, std::vector<size_t>> decided;  // analysis -> windows decided per shard
  std::map<std::string, uint64_t> windows;
  for (uint32_t i = 0; i < kShards; ++i) {
    PartialResult part;
    Status s = RunShard(path, "", AllEngines(), options, {i, kShards}, &part);
    ASSERT_TRUE(s.ok()) << s.ToString();
    for (const WindowedPart& w : part.windowed) {
      decided[w.analysis].push_back(w.decided.size());
      windows[w.analysis] = w.windows;
    }
  }
  std::filesystem::remove_all(dir);
  ASSERT_GT(windows["deadlock"], kShards);
  // Only its shard runs deadlock, and decides every window.
  EXPECT_EQ(decided["deadlock"], (std::vector<size_t>{windows["deadlock"]}));
  ASSERT_EQ(decided["atomicity"].size(), kShards);
  for (size_t n : decided["atomicity"]) EXPECT_GE(n, windows["atomicity"] / kShards);
}

TEST(ShardPlanTest, ParsesIOverN) {
  ShardSpec s;
  ASSERT_TRUE(ParseShard("2/5", &s).ok());
  EXPECT_EQ(s.index, 2u);
  EXPECT_EQ(s.count, 5u);
  ASSERT_TRUE(ParseShard("0/1", &s).ok());
  for (const char* bad : {"", "5/5", "1/0", "-1/3", "1", "1/", "/3", "a/3", "1/3/4", "1 /3", "0/70000"}) {
    const Status st = ParseShard(bad, &s);
    EXPECT_FALSE(st.ok()) << bad;
    EXPECT_NE(st.message().find("expected I/N"), std::string::npos) << st.ToString();
  }
}

}  // namespace
}  // namespace seer::predictor
