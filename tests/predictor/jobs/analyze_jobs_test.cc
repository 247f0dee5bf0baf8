// `--jobs N` (AnalysisOptions::jobs) changes how the work is spread over
// threads, never what is reported: on many generated and random traces, with
// SeqCheck windows small enough that there are many of them and check budgets
// small enough that the windows run out of them, the text and JSON reports of
// 2, 3 or 4 jobs are those of one, byte for byte.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <iterator>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "gen/generator.h"
#include "predictor/analyze.h"
#include "predictor/parallel_feed.h"
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
using test::Unsynced;

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

Reports Analyze(const std::string& path, AnalysisOptions options, unsigned jobs) {
  options.jobs = jobs;
  const std::vector<const EngineSpec*> specs = AllEngines();
  std::vector<std::string> names;
  for (const EngineSpec* spec : specs) names.push_back(spec->name);
  AnalysisRun run;
  Status s = RunAnalyses(path, specs, options, &run);
  EXPECT_TRUE(s.ok()) << path << " --jobs " << jobs << ": " << s.ToString();
  if (!s.ok()) return {};
  return {TextReport(*run.reader, run.findings, names, nullptr), JsonReport(*run.reader, run.findings, names, nullptr),
          run.findings};
}

class AnalyzeJobsTest : public testing::Test {
 protected:
  void SetUp() override {
    dir_ = test::MakeTempDir("analyze_jobs");
    ASSERT_FALSE(dir_.empty());
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  // The reports of `jobs` against those of one; returns one's findings.
  Findings ExpectSameReports(const std::string& path, const AnalysisOptions& options, const std::string& what,
                             std::initializer_list<unsigned> jobs_list) {
    const Reports one = Analyze(path, options, 1);
    for (unsigned jobs : jobs_list) {
      const Reports many = Analyze(path, options, jobs);
      EXPECT_EQ(FirstDifference(many.json, one.json), "") << what << " --jobs " << jobs << ", JSON";
      EXPECT_EQ(FirstDifference(many.text, one.text), "") << what << " --jobs " << jobs << ", text";
    }
    return one.findings;
  }

  std::string dir_;
};

// Many windows, a budget that runs out in some: deadlocks, violations and
// counters as one thread finds them.
TEST_F(AnalyzeJobsTest, GeneratedTracesReportTheSameForAnyJobs) {
  const int traces = test::Iterations(24);
  uint64_t deadlocks = 0, violations = 0, budget_spent = 0, multi_window = 0;
  for (int seed = 1; seed <= traces; ++seed) {
    std::mt19937_64 rng(static_cast<uint64_t>(seed));
    const std::string path = dir_ + "/g" + std::to_string(seed) + ".seer";
    AnalysisOptions options;
    ASSERT_TRUE(test::WriteVariedGeneratedTrace(path, static_cast<uint64_t>(seed), 8000, &rng, &options).ok());
    const Findings f = ExpectSameReports(path, options, "seed " + std::to_string(seed), {2, 3});
    deadlocks += f.deadlocks.size();
    violations += f.atomicity.size();
    if (Stat(f, "deadlock", "checks") == static_cast<double>(options.deadlock_max_checks)) ++budget_spent;
    if (Stat(f, "deadlock", "windows") > 1) ++multi_window;
  }
  // Not vacuous: findings to order, windows to spread, budgets that ran out.
  EXPECT_GT(deadlocks, test::AtLeast(20));
  EXPECT_GT(violations, test::AtLeast(100));
  EXPECT_GT(budget_spent, test::AtLeast(3));
  EXPECT_GT(multi_window, test::AtLeast(10));
}

// Small random traces with rwlocks, atomics, signals, frees and try-locks, cut
// into windows of a few events.
TEST_F(AnalyzeJobsTest, RandomTracesReportTheSameForAnyJobs) {
  const int traces = test::Iterations(160);
  uint64_t findings = 0;
  for (int seed = 1; seed <= traces; ++seed) {
    const std::string path = dir_ + "/r" + std::to_string(seed) + ".seer";
    AnalysisOptions options;
    ASSERT_TRUE(test::WriteVariedRandomTrace(path, seed, &options).ok());
    const Findings f = ExpectSameReports(path, options, "random seed " + std::to_string(seed), {2, 4});
    findings += f.deadlocks.size() + f.atomicity.size();
    for (const RaceResult& race : f.races) findings += race.pairs.size();
  }
  EXPECT_GT(findings, test::AtLeast(500));
}

// A trace the reader stops on halfway (a damaged chunk): the same error,
// whatever the jobs, and nothing left running (the sanitizers would see a
// window still at work on freed memory).
TEST_F(AnalyzeJobsTest, ADecodeErrorStopsEveryJob) {
  gen::GenOptions g;
  g.events = 150000;
  g.threads = 6;
  const std::string path = dir_ + "/damaged.seer";
  {
    std::unique_ptr<TraceWriter> w;
    TraceWriterOptions wo = Unsynced();
    wo.events_per_chunk = 4096;
    ASSERT_TRUE(TraceWriter::Create(path, wo, &w).ok());
    ASSERT_TRUE(gen::Generate(g, w.get()).ok());
    ASSERT_TRUE(w->Close().ok());
  }
  // Bytes in the middle of the file are some chunk's compressed events.
  std::string bytes;
  {
    std::ifstream in(path, std::ios::binary);
    bytes.assign(std::istreambuf_iterator<char>(in), {});
  }
  ASSERT_GT(bytes.size(), 100000u);
  for (size_t i = bytes.size() / 2; i < bytes.size() / 2 + 64; ++i) bytes[i] = static_cast<char>(bytes[i] ^ 0x5a);
  std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;

  AnalysisOptions options;
  options.seqcheck_window = 20000;
  std::string first;
  for (unsigned jobs : {1u, 2u, 4u}) {
    options.jobs = jobs;
    AnalysisRun run;
    Status s = RunAnalyses(path, AllEngines(), options, &run);
    ASSERT_FALSE(s.ok()) << "--jobs " << jobs;
    EXPECT_EQ(s.code(), Status::Code::kCorruption) << s.ToString();
    // Halfway: windows were decided or at work when the reader stopped.
    EXPECT_GT(run.events, 40000u) << s.ToString();
    if (first.empty()) first = s.ToString();
    EXPECT_EQ(s.ToString(), first) << "--jobs " << jobs;
  }
}

// Where --jobs puts the engines' passes (ParallelFeed): the heavy ones apart.
TEST(PlaceLanesTest, TheDefaultSetsHeaviestPassesRunOnDifferentThreads) {
  std::vector<std::string> names;
  std::vector<double> costs;
  for (const EngineSpec& spec : Engines()) {
    if (!spec.in_default_set) continue;
    names.push_back(spec.name);
    costs.push_back(spec.lane_cost);
  }
  const std::vector<int> thread = PlaceLanes(costs, 2);
  ASSERT_EQ(thread.size(), names.size());
  auto thread_of = [&](const std::string& name) {
    return thread[static_cast<size_t>(std::find(names.begin(), names.end(), name) - names.begin())];
  };
  EXPECT_NE(thread_of("w3-linear"), thread_of("wcp"));
  double load[2] = {0, 0};
  for (size_t i = 0; i < thread.size(); ++i) {
    ASSERT_TRUE(thread[i] == 0 || thread[i] == 1) << names[i];
    load[thread[i]] += costs[i];
  }
  // Greedy placement, costliest first: the threads differ by at most the largest cost.
  EXPECT_LE(std::abs(load[0] - load[1]), *std::max_element(costs.begin(), costs.end()));
}

TEST(PlaceLanesTest, CostliestFirstOnTheLeastLoadedThread) {
  EXPECT_EQ(PlaceLanes({1, 5, 2, 2}, 2), (std::vector<int>{1, 0, 1, 1}));
  EXPECT_EQ(PlaceLanes({1, 1, 1, 1}, 2), (std::vector<int>{0, 1, 0, 1}));  // equal costs: round robin
  EXPECT_EQ(PlaceLanes({4, 3, 2}, 1), (std::vector<int>{0, 0, 0}));
  EXPECT_EQ(PlaceLanes({4, 3, 2}, 0), (std::vector<int>{0, 0, 0}));  // a pool has a thread at least
  EXPECT_TRUE(PlaceLanes({}, 2).empty());
}

}  // namespace
}  // namespace seer::predictor
