// The part file of `seer analyze --shard` (predictor/partial_file.h): every
// field of the findings survives it, a damaged or foreign file is refused with
// what is wrong, and the merge refuses parts that are not the N parts of one
// analysis of the trace it reads (predictor/shard.h).
#include "predictor/partial_file.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "gen/generator.h"
#include "predictor/analyze.h"
#include "predictor/shard.h"
#include "seer/trace.h"
#include "tests/support/temp_dir.h"

namespace seer::predictor {
namespace {

using nlohmann::json;

EventRef Ref(uint64_t seed) {
  return {seed, static_cast<uint32_t>(seed % 7), 0xfffffffffff0 + seed, EventKind::kWrite, 1ull << 63 | seed, 8};
}

// Every field of Findings set to something other than its default.
Findings Everything() {
  Findings f;
  RaceResult r;
  r.engine = "wcp";
  r.guarantee = Guarantee::kAllReal;
  r.racy_events = 12;
  r.racy_locations = 5;
  RacePair p;
  p.first = Ref(1);
  p.second = Ref(2);
  p.occurrences = 3;
  p.confirmed = false;
  p.confirmation.schedule = Schedule({4, 5, 6, 9});
  p.confirmation.validated = true;
  r.pairs.push_back(p);
  RacePair q;
  q.first = Ref(18446744073709551615ull);  // UINT64_MAX survives
  q.second = Ref(7);
  r.pairs.push_back(q);
  f.races.push_back(r);
  Deadlock d;
  d.engine = "deadlock";
  d.guarantee = Guarantee::kWitnessed;
  d.cycle.push_back({3, 0x10, Ref(10), 0x20, Ref(11)});
  d.cycle.push_back({4, 0x20, Ref(12), 0x10, Ref(13)});
  d.witness.schedule.AppendRun(100, 1000000);
  d.witness.validated = true;
  f.deadlocks.push_back(d);
  f.lock_order.push_back({"lock-order", d.cycle});
  f.atomicity.push_back({"atomicity", "read-write-read", Ref(20), Ref(21), Ref(22), d.witness});
  f.atomicity_candidates.push_back({"atomicity", "write-read-write", Ref(23), Ref(24), Ref(25), Witness()});
  f.stats.push_back({"deadlock", {{"checks", 3}, {"check_seconds", 0.1 + 0.2}, {"big", 1e300}}});
  return f;
}

TEST(PartialFileTest, FindingsSurviveEveryField) {
  const Findings f = Everything();
  Findings back;
  ASSERT_TRUE(FindingsFromJson(json::parse(FindingsToJson(f).dump()), &back).ok());
  // The JSON of what came back is the JSON of what went: every field is in it.
  EXPECT_EQ(FindingsToJson(back).dump(), FindingsToJson(f).dump());
  ASSERT_EQ(back.races.size(), 1u);
  EXPECT_EQ(back.races[0].pairs[0].confirmed, std::optional<bool>(false));
  EXPECT_EQ(back.races[0].pairs[1].confirmed, std::nullopt);
  EXPECT_EQ(back.races[0].pairs[1].first.index, 18446744073709551615ull);
  EXPECT_EQ(back.races[0].guarantee, Guarantee::kAllReal);
  EXPECT_EQ(back.deadlocks[0].witness.schedule.size(), 1000000u);
  EXPECT_EQ(back.deadlocks[0].witness.schedule.runs().size(), 1u);
  EXPECT_EQ(back.stats[0].counters[1].second, 0.1 + 0.2);  // doubles exactly
  EXPECT_EQ(back.stats[0].counters[2].second, 1e300);
  EXPECT_EQ(back.atomicity[0].pattern, "read-write-read");
  ASSERT_EQ(back.atomicity_candidates.size(), 1u);
  EXPECT_EQ(back.atomicity_candidates[0].pattern, "write-read-write");
  EXPECT_EQ(back.atomicity_candidates[0].remote.index, 24u);
}

PartialResult SomePart() {
  PartialResult p;
  p.trace = {"t.seer", 1234, 1700000000123456789, 99, 3, "2026-11-30T00:00:00Z", "node1", true, 0xfedcba9876543210};
  p.analysis_list = "hb,deadlock";
  p.analyses = {"hb", "deadlock"};
  p.options.seqcheck_window = 77;
  p.options.rapid_compatible = false;
  p.shard = {1, 3};
  p.events = 99;
  p.engines.push_back({"hb", Everything()});
  WindowedPart w{"deadlock", 5, 20000, {}};
  w.decided.push_back({1, 20000, Everything(), {}});
  w.decided.back().stats.checks = 17;
  w.decided.back().stats.check_seconds = 0.25;
  w.decided.push_back({4, 20000, Findings(), {}});
  p.windowed.push_back(w);
  return p;
}

TEST(PartialFileTest, APartSurvivesItsFile) {
  const std::string dir = test::MakeTempDir("partial_file");
  const PartialResult p = SomePart();
  const std::string path = dir + "/part.json";
  ASSERT_TRUE(WritePartial(path, p).ok());
  struct stat st;
  ASSERT_EQ(stat(path.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);  // findings name the program's addresses and code
  PartialResult back;
  Status s = ReadPartial(path, &back);
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(EncodePartial(back), EncodePartial(p));
  EXPECT_EQ(back.trace.mtime_ns, 1700000000123456789);
  EXPECT_EQ(back.trace.digest, 0xfedcba9876543210u);
  EXPECT_EQ(back.options.seqcheck_window, 77u);
  EXPECT_FALSE(back.options.rapid_compatible);
  ASSERT_EQ(back.windowed.size(), 1u);
  EXPECT_EQ(back.windowed[0].decided[0].stats.checks, 17u);
  EXPECT_EQ(back.windowed[0].decided[1].window, 4u);
  // Self-describing: a reader sees what it is without seer.
  const json j = json::parse(EncodePartial(p));
  EXPECT_EQ(j["format"], "seer-analysis-part");
  EXPECT_EQ(j["version"], 1);
  EXPECT_EQ(j["shard"]["count"], 3);
  std::filesystem::remove_all(dir);
}

TEST(PartialFileTest, DamagedAndForeignFilesAreRefused) {
  const std::string good = EncodePartial(SomePart());
  PartialResult out;
  struct Case {
    std::string text;
    std::string says;
  };
  json wrong_version = json::parse(good);
  wrong_version["version"] = 2;
  json wrong_kind = json::parse(good);
  wrong_kind["windowed"][0]["decided"][0]["findings"]["races"][0]["pairs"][0]["first"]["kind"] = 999;
  json no_trace = json::parse(good);
  no_trace.erase("trace");
  json bad_shard = json::parse(good);
  bad_shard["shard"]["index"] = 3;
  const Case cases[] = {
      {good.substr(0, good.size() / 2), "not JSON"},
      {"", "not JSON"},
      {"{\"format\": \"seer-report\"}", "no \"format\""},
      {wrong_version.dump(), "version 2, this seer reads version 1"},
      {wrong_kind.dump(), "deadlock window 1"},
      {no_trace.dump(), "damaged partial result"},
      {bad_shard.dump(), "shard 3/3 is not a shard"},
  };
  for (const Case& c : cases) {
    const Status s = DecodePartial("p.json", c.text, &out);
    EXPECT_FALSE(s.ok()) << c.says;
    EXPECT_EQ(s.message().rfind("p.json: ", 0), 0u) << s.ToString();
    EXPECT_NE(s.message().find(c.says), std::string::npos) << s.ToString();
  }
  EXPECT_EQ(ReadPartial("/nonexistent/part.json", &out).code(), Status::Code::kNotFound);
}

class MergeErrorsTest : public testing::Test {
 protected:
  void SetUp() override {
    dir_ = test::MakeTempDir("merge_errors");
    ASSERT_FALSE(dir_.empty());
    trace_ = Generate("t.seer", 1);
    ASSERT_TRUE(SelectEngines("hb,wcp,deadlock,atomicity", &specs_).ok());
    options_.seqcheck_window = 1000;
    for (uint32_t i = 0; i < 3; ++i) parts_.push_back(Part(trace_, {i, 3}, options_));
    names_ = {"p0", "p1", "p2"};
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  std::string Generate(const std::string& name, uint64_t seed) {
    gen::GenOptions g;
    g.seed = seed;
    g.events = 5000;
    g.threads = 4;
    g.locks = 3;
    const std::string path = dir_ + "/" + name;
    std::unique_ptr<TraceWriter> w;
    TraceWriterOptions wo;
    wo.sync_on_close = false;
    EXPECT_TRUE(TraceWriter::Create(path, wo, &w).ok());
    EXPECT_TRUE(gen::Generate(g, w.get()).ok());
    EXPECT_TRUE(w->Close().ok());
    return path;
  }
  PartialResult Part(const std::string& trace, ShardSpec shard, const AnalysisOptions& options) {
    PartialResult p;
    const Status s = RunShard(trace, "hb,wcp,deadlock,atomicity", specs_, options, shard, &p);
    EXPECT_TRUE(s.ok()) << s.ToString();
    return p;
  }
  std::string MergeError(const std::vector<PartialResult>& parts, const std::vector<std::string>& names,
                         const std::string& trace = "") {
    AnalysisRun run;
    const Status s = MergeParts(parts, names, trace, &run);
    EXPECT_FALSE(s.ok());
    return s.message();
  }

  std::string dir_, trace_;
  std::vector<const EngineSpec*> specs_;
  AnalysisOptions options_;
  std::vector<PartialResult> parts_;
  std::vector<std::string> names_;
};

TEST_F(MergeErrorsTest, TheThreePartsMerge) {
  AnalysisRun run;
  const Status s = MergeParts(parts_, names_, "", &run);
  ASSERT_TRUE(s.ok()) << s.ToString();
  AnalysisRun one;
  ASSERT_TRUE(RunAnalyses(trace_, specs_, options_, &one).ok());
  EXPECT_EQ(FindingsToJson(run.findings).dump(), FindingsToJson(one.findings).dump());
}

TEST_F(MergeErrorsTest, AMissingShardIsNamed) {
  EXPECT_EQ(MergeError({parts_[0], parts_[2]}, {"p0", "p2"}), "missing shards: 1/3");
  EXPECT_EQ(MergeError({parts_[1]}, {"p1"}), "missing shards: 0/3, 2/3");
  EXPECT_EQ(MergeError({}, {}), "no part to merge");
}

TEST_F(MergeErrorsTest, AShardTwiceIsNamed) {
  EXPECT_EQ(MergeError({parts_[0], parts_[1], parts_[1], parts_[2]}, {"p0", "p1", "again", "p2"}),
            "again and p1 are both shard 1/3");
}

TEST_F(MergeErrorsTest, PartsOfAnotherCutAreRefused) {
  const PartialResult of_two = Part(trace_, {1, 2}, options_);
  EXPECT_NE(MergeError({parts_[0], of_two, parts_[2]}, {"p0", "half", "p2"})
                .find("half and p0 cut the analysis into different numbers of shards (2 and 3)"),
            std::string::npos);
}

TEST_F(MergeErrorsTest, OtherOptionsOrAnalysesAreRefused) {
  AnalysisOptions other = options_;
  other.deadlock_max_checks = 5;
  EXPECT_EQ(MergeError({parts_[0], Part(trace_, {1, 3}, other), parts_[2]}, names_),
            "p1 and p0 ran the analyses with different options");
  PartialResult fewer = parts_[1];
  fewer.analyses.pop_back();
  EXPECT_EQ(MergeError({parts_[0], fewer, parts_[2]}, names_), "p1 and p0 ran different analyses");
}

TEST_F(MergeErrorsTest, PartsOfAnotherTraceAreRefused) {
  const std::string other = Generate("other.seer", 2);
  const std::string message = MergeError({parts_[0], Part(other, {1, 3}, options_), parts_[2]}, names_);
  EXPECT_NE(message.find("p1 and p0 are parts of different traces: " + other), std::string::npos) << message;
}

TEST_F(MergeErrorsTest, ATraceWrittenAgainIsRefused) {
  // The same path, written again after the parts were made.
  std::filesystem::rename(Generate("again.seer", 9), trace_);
  const std::string message = MergeError(parts_, names_);
  EXPECT_NE(message.find(trace_ + " is not the trace the parts were made of"), std::string::npos) << message;
}

TEST_F(MergeErrorsTest, ACopyIsReadWithTrace) {
  const std::string copy = dir_ + "/copy.seer";
  std::filesystem::copy_file(trace_, copy);
  AnalysisRun run;
  const Status s = MergeParts(parts_, names_, copy, &run);
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(run.reader->info().path, copy);
  // But not another trace under that name.
  const std::string message = MergeError(parts_, names_, Generate("other.seer", 3));
  EXPECT_NE(message.find("is not the trace the parts were made of"), std::string::npos) << message;
}

TEST_F(MergeErrorsTest, ConfirmRacesIsNotSharded) {
  AnalysisOptions confirm = options_;
  confirm.confirm_races = true;
  PartialResult p;
  const Status s = RunShard(trace_, "", specs_, confirm, {0, 2}, &p);
  EXPECT_EQ(s.code(), Status::Code::kInvalidArgument);
  EXPECT_NE(s.message().find("--confirm-races cannot be sharded"), std::string::npos) << s.ToString();
}

}  // namespace
}  // namespace seer::predictor
