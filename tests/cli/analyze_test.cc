// The analysis driver and the reports, with a test-only engine (the real engines
// live in the registry; this one is not registered).
#include "predictor/analyze.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "interop/std_import.h"
#include "predictor/report/report.h"
#include "tests/support/cli_test_util.h"

namespace seer {
namespace {

using nlohmann::json;

// Reports a "race" whenever a read follows a write of another thread to the same
// variable. Not an analysis anyone should use: it exercises the plumbing. It
// also checks what the driver promises: Begin once, then every event once, in
// order, then Finish once.
class LastWriterEngine final : public predictor::Engine {
 public:
  static inline int begins = 0, finishes = 0;
  static inline uint64_t events_seen = 0;
  static inline bool in_order = true;

  Status Begin(const TraceInfo& info) override {
    ++begins;
    threads_ = info.counters.distinct_threads;
    return Status::Ok();
  }
  void Process(const Event* events, size_t n) override {
    for (size_t i = 0; i < n; ++i) {
      const Event& e = events[i];
      in_order &= e.index == next_index_++;
      ++events_seen;
      if (e.kind == EventKind::kWrite) last_write_[e.object] = e;
      if (e.kind != EventKind::kRead) continue;
      auto it = last_write_.find(e.object);
      if (it == last_write_.end() || it->second.tid == e.tid) continue;
      ++result_.racy_events;
      bool found = false;
      for (predictor::RacePair& p : result_.pairs) {
        if (p.first.pc == it->second.pc && p.second.pc == e.pc) {
          ++p.occurrences;
          found = true;
        }
      }
      if (!found) result_.pairs.push_back({predictor::EventRef::Of(it->second), predictor::EventRef::Of(e), 1});
    }
  }
  Status Finish(predictor::Findings* findings) override {
    ++finishes;
    result_.engine = "last-writer";
    result_.guarantee = predictor::Guarantee::kHeuristic;
    result_.racy_locations = result_.pairs.size();
    findings->races.push_back(result_);
    return Status::Ok();
  }

 private:
  uint64_t threads_ = 0;
  uint64_t next_index_ = 0;
  std::map<uint64_t, Event> last_write_;
  predictor::RaceResult result_;
};

const predictor::EngineSpec kTestSpec = {"last-writer", "test engine", true, [](const predictor::AnalysisOptions&) {
                                           return std::unique_ptr<predictor::Engine>(new LastWriterEngine);
                                         }};

class AnalyzeTest : public test::TempDirTest {
 protected:
  void SetUp() override {
    TempDirTest::SetUp();
    LastWriterEngine::begins = LastWriterEngine::finishes = 0;
    LastWriterEngine::events_seen = 0;
    LastWriterEngine::in_order = true;
  }
  std::string ImportText(const std::string& text) {
    test::WriteFile(Path("in.std"), text);
    std::unique_ptr<TraceWriter> w;
    EXPECT_TRUE(TraceWriter::Create(Path("t.seer"), {}, &w).ok());
    interop::ImportStats stats;
    Status s = interop::ImportStd(Path("in.std"), w.get(), &stats);
    EXPECT_TRUE(s.ok()) << s.ToString();
    EXPECT_TRUE(w->Close().ok());
    return Path("t.seer");
  }
};

const char* kRacy =
    "main|fork(worker)|1\n"
    "main|w(x)|2\n"
    "worker|r(x)|3\n"
    "worker|w(y)|4\n"
    "main|r(y)|5\n"
    "main|w(x)|2\n"
    "worker|r(x)|3\n"
    "main|join(worker)|6\n";

TEST_F(AnalyzeTest, DriverFeedsEveryEngineEveryEventInOrder) {
  const std::string trace = ImportText(kRacy);
  predictor::AnalysisRun run;
  Status s = predictor::RunAnalyses(trace, {&kTestSpec, &kTestSpec}, {}, &run);
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(run.events, 8u);
  EXPECT_EQ(LastWriterEngine::begins, 2);
  EXPECT_EQ(LastWriterEngine::finishes, 2);
  EXPECT_EQ(LastWriterEngine::events_seen, 16u);
  EXPECT_TRUE(LastWriterEngine::in_order);
  ASSERT_EQ(run.findings.races.size(), 2u);
  const predictor::RaceResult& r = run.findings.races[0];
  ASSERT_EQ(r.pairs.size(), 2u);
  EXPECT_EQ(r.racy_events, 3u);
  EXPECT_EQ(r.pairs[0].first.pc, 2u);
  EXPECT_EQ(r.pairs[0].second.pc, 3u);
  EXPECT_EQ(r.pairs[0].occurrences, 2u);
  EXPECT_EQ(predictor::CountFindings(run.findings), 4u);
}

TEST_F(AnalyzeTest, DriverReportsBadTraces) {
  predictor::AnalysisRun run;
  Status s = predictor::RunAnalyses(Path("missing.seer"), {&kTestSpec}, {}, &run);
  EXPECT_EQ(s.code(), Status::Code::kNotFound);
  EXPECT_NE(s.message().find("missing.seer"), std::string::npos);
  EXPECT_EQ(LastWriterEngine::begins, 0);
}

TEST_F(AnalyzeTest, SelectEngines) {
  std::vector<const predictor::EngineSpec*> specs;
  Status s = predictor::SelectEngines("no-such-analysis", &specs);
  EXPECT_EQ(s.code(), Status::Code::kInvalidArgument);
  EXPECT_NE(s.message().find("unknown analysis 'no-such-analysis'"), std::string::npos);
  EXPECT_NE(s.message().find("known:"), std::string::npos);
  for (const predictor::EngineSpec& spec : predictor::Engines())
    EXPECT_NE(s.message().find(spec.name), std::string::npos);
  // The empty list is the default set.
  ASSERT_TRUE(predictor::SelectEngines("", &specs).ok());
  size_t defaults = 0;
  for (const predictor::EngineSpec& spec : predictor::Engines()) defaults += spec.in_default_set;
  EXPECT_EQ(specs.size(), defaults);
  if (!predictor::Engines().empty()) {
    const std::string first = predictor::Engines()[0].name;
    ASSERT_TRUE(predictor::SelectEngines(first + "," + first, &specs).ok());
    EXPECT_EQ(specs.size(), 1u);
  }
}

TEST_F(AnalyzeTest, JsonReportHasTheDocumentedKeys) {
  const std::string trace = ImportText(kRacy);
  predictor::AnalysisRun run;
  ASSERT_TRUE(predictor::RunAnalyses(trace, {&kTestSpec}, {}, &run).ok());
  run.findings.deadlocks.push_back(
      {"test", predictor::Guarantee::kWitnessed, {{0, 0, {}, 1, {}}, {1, 1, {}, 0, {}}}, {{1, 2}, true}});
  run.findings.atomicity.push_back({"test", "read-write-read", {}, {}, {}, {}});
  json j = json::parse(predictor::JsonReport(*run.reader, run.findings, {"last-writer"}));
  ASSERT_TRUE(j.is_object());
  for (const char* key : {"path", "events", "threads", "lost_events", "lost", "complete", "source", "format_version"})
    EXPECT_TRUE(j["trace"].contains(key)) << key;
  EXPECT_EQ(j["trace"]["events"], 8);
  EXPECT_EQ(j["trace"]["threads"], 2);
  EXPECT_EQ(j["trace"]["lost_events"], 0);
  EXPECT_EQ(j["trace"]["complete"], true);
  EXPECT_EQ(j["analyses"], json::array({"last-writer"}));
  const json& r = j["races"]["last-writer"];
  EXPECT_EQ(r["guarantee"], "heuristic");
  EXPECT_EQ(r["racy_events"], 3);
  EXPECT_EQ(r["racy_locations"], 2);
  EXPECT_EQ(r["race_pairs"], 2);
  ASSERT_EQ(r["pairs"].size(), 2u);
  const json& p = r["pairs"][0];
  EXPECT_EQ(p["variable"], "x");
  EXPECT_EQ(p["occurrences"], 2);
  for (const char* key : {"index", "thread", "thread_name", "kind", "location", "object", "size"}) {
    EXPECT_TRUE(p["first"].contains(key)) << key;
    EXPECT_TRUE(p["second"].contains(key)) << key;
  }
  EXPECT_EQ(p["first"]["index"], 1);
  EXPECT_EQ(p["first"]["thread_name"], "main");
  EXPECT_EQ(p["first"]["kind"], "write");
  EXPECT_EQ(p["first"]["location"], 2);
  EXPECT_EQ(p["first"]["size"], 1);
  EXPECT_EQ(p["second"]["thread"], 1);
  EXPECT_EQ(p["second"]["thread_name"], "worker");
  EXPECT_EQ(p["second"]["kind"], "read");
  ASSERT_EQ(j["deadlocks"].size(), 1u);
  EXPECT_EQ(j["deadlocks"][0]["cycle"].size(), 2u);
  EXPECT_EQ(j["deadlocks"][0]["witness"]["validated"], true);
  EXPECT_TRUE(j["deadlocks"][0]["cycle"][0].contains("blocked_acquire"));
  ASSERT_EQ(j["atomicity"].size(), 1u);
  EXPECT_EQ(j["atomicity"][0]["pattern"], "read-write-read");
}

TEST_F(AnalyzeTest, TextReportNamesRacesAndLostEvents) {
  // A trace with lost events, written directly.
  std::unique_ptr<TraceWriter> w;
  ASSERT_TRUE(TraceWriter::Create(Path("lost.seer"), {}, &w).ok());
  w->AddLost("bpf-ringbuf", EventKind::kAcquire, 7);
  w->AddLost("bpf-ringbuf", EventKind::kRead, 3);
  ASSERT_TRUE(w->Close().ok());
  predictor::AnalysisRun run;
  ASSERT_TRUE(predictor::RunAnalyses(Path("lost.seer"), {&kTestSpec}, {}, &run).ok());
  std::string text = predictor::TextReport(*run.reader, run.findings, {"last-writer"});
  EXPECT_NE(text.find("lost events: 10 (bpf-ringbuf: 3 read, 7 acquire)"), std::string::npos) << text;
  json j = json::parse(predictor::JsonReport(*run.reader, run.findings, {"last-writer"}));
  EXPECT_EQ(j["trace"]["lost_events"], 10);
  EXPECT_EQ(j["trace"]["lost"]["bpf-ringbuf"]["acquire"], 7);

  predictor::AnalysisRun racy;
  ASSERT_TRUE(predictor::RunAnalyses(ImportText(kRacy), {&kTestSpec}, {}, &racy).ok());
  // The test engine's guarantee is heuristic: by default its pairs are counted, not listed.
  text = predictor::TextReport(*racy.reader, racy.findings, {"last-writer"});
  EXPECT_NE(text.find("  2 pairs only heuristic engines report: not listed (--lockset-warnings)\n"), std::string::npos)
      << text;
  EXPECT_NE(text.find("findings: 2 last-writer-only warnings not listed (--lockset-warnings)\n"), std::string::npos)
      << text;
  EXPECT_EQ(text.find("race on x"), std::string::npos) << text;
  predictor::ReportOptions listed;
  listed.list_heuristic = true;
  text = predictor::TextReport(*racy.reader, racy.findings, {"last-writer"}, nullptr, listed);
  EXPECT_NE(text.find("lost events: 0\n"), std::string::npos) << text;
  EXPECT_NE(text.find("last-writer: 2 race pairs, 3 racy events, 2 racy locations"), std::string::npos) << text;
  EXPECT_NE(text.find("race on x: main write at location 2 (event 1) and worker read at location 3 (event 2), 2 times"),
            std::string::npos)
      << text;
}

}  // namespace
}  // namespace seer
