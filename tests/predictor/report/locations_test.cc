// Where raced variables live, in reports of a recorded program
// (programs/locations.c): a variable of main's stack, a thread-local variable of
// the worker, and a heap block. The runtime allocates each thread's stack and
// static TLS blocks as the thread starts; the JSON and text reports of
// `seer analyze` name the kind, the owner thread and the TLS variable.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <string>

#include "recorded_program.h"

namespace seer::predictor {
namespace {

using nlohmann::json;
using testing::MarkedLine;
using testing::Shell;
using testing::Where;

const std::string kSource = std::string(SEER_REPORT_PROGRAMS) + "/locations.c";

std::string Line(const char* marker) { return "locations.c:" + std::to_string(MarkedLine(kSource, marker)); }

// Each sync mode's program is built, recorded and analysed once, for all tests.
struct Recorded {
  std::string dir;
  json report;
  std::string text;
};

class LocationsTest : public ::testing::TestWithParam<const char*> {
 protected:
  static void TearDownTestSuite() {
    for (auto& [mode, r] : recorded_) std::filesystem::remove_all(r.dir);
    recorded_.clear();
  }
  void SetUp() override {
    auto [it, fresh] = recorded_.emplace(GetParam(), Recorded());
    Recorded& r = it->second;
    if (fresh) Record(&r);
    ASSERT_TRUE(r.report.is_object()) << "recording or analysis failed (see the first test's messages)";
    report_ = r.report;
    text_ = r.text;
  }
  static void Record(Recorded* r) {
    r->dir = testing::MakeTempDir("locations");
    ASSERT_FALSE(r->dir.empty());
    const std::string prog = r->dir + "/locations", trace = r->dir + "/locations.seer";
    ASSERT_EQ(Shell(std::string(SEER_CC) + " -O1 " + kSource + " -o " + prog + " -lpthread"), 0);
    ASSERT_EQ(Shell(std::string(SEER_BIN) + " record -q --sync=" + GetParam() + " -o " + trace + " -- " + prog), 0);
    const std::string seer = std::string(SEER_BIN) + " analyze -a hb " + trace;
    ASSERT_EQ(Shell(seer + " -o " + r->dir + "/r.txt"), 0);
    ASSERT_EQ(Shell(seer + " --format json -o " + r->dir + "/r.json"), 0);
    std::ifstream in(r->dir + "/r.txt");
    r->text.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    r->report = testing::ReadJson(r->dir + "/r.json");
  }

  // The hb pair between the lines marked `a` and `b`, or null.
  const json* Pair(const char* a, const char* b) const {
    for (const json& p : report_["races"]["hb"]["pairs"]) {
      const std::string x = Where(p["first"]), y = Where(p["second"]);
      if ((x == Line(a) && y == Line(b)) || (x == Line(b) && y == Line(a))) return &p;
    }
    return nullptr;
  }
  static const json& At(const json& pair, const char* marker) {
    return Where(pair["first"]) == Line(marker) ? pair["first"] : pair["second"];
  }

  static inline std::map<std::string, Recorded> recorded_;
  json report_;
  std::string text_;
};

TEST_P(LocationsTest, StackVariableOfMain) {
  const json* p = Pair("MARK-STACK-WORKER", "MARK-STACK-MAIN");
  ASSERT_NE(p, nullptr) << report_["races"].dump(1);
  const json& v = (*p)["variable_details"];
  EXPECT_EQ(v["kind"], "stack") << v.dump(1);
  EXPECT_EQ(v["name"], nullptr);
  EXPECT_EQ(v["thread"], At(*p, "MARK-STACK-MAIN")["thread"]);  // main's stack, raced by the worker too
  EXPECT_NE(v["thread"], At(*p, "MARK-STACK-WORKER")["thread"]);
  const uint64_t raced = (*p)["first"]["object"].get<uint64_t>();
  EXPECT_LE(v["address"].get<uint64_t>(), raced);
  EXPECT_LT(raced - v["address"].get<uint64_t>(), v["size"].get<uint64_t>());
  EXPECT_GE(v["size"].get<uint64_t>(), 64u * 1024);  // a whole stack
  EXPECT_EQ(v["alloc_stack"], nullptr);
  EXPECT_NE(text_.find("Location is stack of thread " + At(*p, "MARK-STACK-MAIN")["thread_name"].get<std::string>()),
            std::string::npos)
      << text_;
}

TEST_P(LocationsTest, ThreadLocalVariableOfTheWorker) {
  const json* p = Pair("MARK-TLS-WORKER", "MARK-TLS-MAIN");
  ASSERT_NE(p, nullptr) << report_["races"].dump(1);
  const json& v = (*p)["variable_details"];
  EXPECT_EQ(v["kind"], "tls") << v.dump(1);
  EXPECT_EQ(v["name"], "tls_counter");
  EXPECT_EQ(v["size"], 4);
  EXPECT_EQ(v["address"], (*p)["first"]["object"]);
  EXPECT_EQ(v["thread"], At(*p, "MARK-TLS-WORKER")["thread"]);
  EXPECT_NE(v["thread"], At(*p, "MARK-TLS-MAIN")["thread"]);
  EXPECT_EQ(std::filesystem::path(v["module"].get<std::string>()).filename(), "locations");
  EXPECT_NE(text_.find("Location is TLS variable 'tls_counter' of size 4 at "), std::string::npos) << text_;
  EXPECT_NE(text_.find(" of thread " + At(*p, "MARK-TLS-WORKER")["thread_name"].get<std::string>() + " (locations)"),
            std::string::npos)
      << text_;
}

TEST_P(LocationsTest, HeapBlockIsUnchanged) {
  const json* p = Pair("MARK-HEAP-WORKER", "MARK-HEAP-MAIN");
  ASSERT_NE(p, nullptr) << report_["races"].dump(1);
  const json& v = (*p)["variable_details"];
  EXPECT_EQ(v["kind"], "heap") << v.dump(1);
  EXPECT_EQ(v["size"], 16);
  ASSERT_TRUE(v["alloc_stack"].is_array() && !v["alloc_stack"].empty()) << v.dump(1);
  EXPECT_EQ(v["alloc_stack"][0]["function"], "main");
  EXPECT_FALSE(v.contains("thread"));
  EXPECT_NE(text_.find("Location is heap block of size 16"), std::string::npos) << text_;
}

TEST_P(LocationsTest, NoOtherRaces) {
  EXPECT_EQ(report_["races"]["hb"]["pairs"].size(), 3u) << report_["races"]["hb"].dump(1);
}

// inproc: the runtime records synchronisation; ebpf: uprobes do, and the
// runtime still records the allocations.
INSTANTIATE_TEST_SUITE_P(Sync, LocationsTest, ::testing::Values("inproc", "ebpf"));

}  // namespace
}  // namespace seer::predictor
