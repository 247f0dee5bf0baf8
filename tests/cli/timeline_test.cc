// `seer export --format perfetto`: the Chrome trace-event JSON of an imported
// trace (data/formats.std: hand-over-hand locking, a condition wait, fork and
// join, a race and a deadlock) obeys the format's rules (every B has its E on
// its thread, properly nested; timestamps never go back on a track; every flow
// start has its end; every track is named), holds the spans and findings the
// trace implies, and --window and --max-events bound it with clear messages.
// (tests/report/formats loads a timeline in headless Chromium.)
#include <gtest/gtest.h>

#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "tests/cli/cli_test_util.h"

namespace seer {
namespace {

using nlohmann::json;

// The format's rules; one line per violation.
std::vector<std::string> Violations(const json& doc) {
  std::vector<std::string> out;
  if (!doc.is_object() || !doc["traceEvents"].is_array()) return {"no traceEvents array"};
  std::map<uint64_t, std::vector<std::string>> open;  // per tid, the names of open B
  std::map<uint64_t, double> last;
  std::set<uint64_t> named, used;
  std::map<uint64_t, int> flows;  // id -> starts - finishes
  for (const json& e : doc["traceEvents"]) {
    const std::string ph = e.value("ph", "");
    const uint64_t tid = e.value("tid", 0);
    if (ph == "M") {
      if (e["name"] == "thread_name") named.insert(tid);
      continue;
    }
    used.insert(tid);
    const double ts = e.value("ts", -1.0);
    if (last.count(tid) && ts < last[tid]) out.push_back("time goes back on tid " + std::to_string(tid));
    last[tid] = ts;
    if (ph == "B") {
      open[tid].push_back(e["name"]);
    } else if (ph == "E") {
      if (open[tid].empty()) {
        out.push_back("E without B on tid " + std::to_string(tid));
      } else if (e.contains("name") && e["name"] != open[tid].back()) {
        out.push_back("E of " + e["name"].get<std::string>() + " closes " + open[tid].back());
        open[tid].pop_back();
      } else {
        open[tid].pop_back();
      }
    } else if (ph == "s") {
      ++flows[e["id"].get<uint64_t>()];
    } else if (ph == "f") {
      --flows[e["id"].get<uint64_t>()];
    } else if (ph != "i") {
      out.push_back("unexpected phase " + ph);
    }
  }
  for (const auto& [tid, names] : open)
    if (!names.empty()) out.push_back(std::to_string(names.size()) + " B never ended on tid " + std::to_string(tid));
  for (uint64_t tid : used)
    if (!named.count(tid)) out.push_back("tid " + std::to_string(tid) + " has no thread_name");
  for (const auto& [id, balance] : flows)
    if (balance != 0) out.push_back("flow " + std::to_string(id) + " is not one start and one end");
  return out;
}

TEST(TimelineRulesTest, TheCheckerCatchesBrokenDocuments) {
  const json meta = {{"ph", "M"}, {"name", "thread_name"}, {"pid", 1}, {"tid", 1}, {"args", {{"name", "t"}}}};
  auto doc = [&](std::vector<json> events) {
    events.insert(events.begin(), meta);
    return json{{"traceEvents", events}};
  };
  auto ev = [](const char* ph, const char* name, double ts) {
    return json{{"ph", ph}, {"name", name}, {"pid", 1}, {"tid", 1}, {"ts", ts}};
  };
  EXPECT_TRUE(Violations(doc({ev("B", "a", 1), ev("E", "a", 2)})).empty());
  EXPECT_FALSE(Violations(doc({ev("E", "a", 1)})).empty());
  EXPECT_FALSE(Violations(doc({ev("B", "a", 1)})).empty());
  EXPECT_FALSE(Violations(doc({ev("B", "a", 2), ev("E", "a", 1)})).empty());
  EXPECT_FALSE(Violations(doc({ev("B", "a", 1), ev("B", "b", 1), ev("E", "a", 2), ev("E", "b", 2)})).empty());
  json unnamed = ev("i", "x", 1);
  unnamed["tid"] = 2;
  EXPECT_FALSE(Violations(doc({unnamed})).empty());
}

class TimelineTest : public test::TempDirTest {
 protected:
  void SetUp() override {
    TempDirTest::SetUp();
    trace_ = Path("t.seer");
    auto r = Seer("import -q " + test::DataFile("formats.std") + " -o " + trace_);
    ASSERT_EQ(r.code, 0) << r.err;
  }
  json Export(const std::string& args) {
    auto r = Seer("export --format perfetto " + trace_ + " " + args);
    EXPECT_EQ(r.code, 0) << r.err;
    return json::parse(r.out, nullptr, false);
  }
  std::string trace_;
};

std::vector<json> Of(const json& doc, const std::string& ph) {
  std::vector<json> out;
  for (const json& e : doc["traceEvents"])
    if (e["ph"] == ph) out.push_back(e);
  return out;
}

TEST_F(TimelineTest, FollowsTheFormatAndHoldsTheTracesSpans) {
  const json doc = Export("--analysis hb,deadlock");
  const std::vector<std::string> bad = Violations(doc);
  EXPECT_TRUE(bad.empty()) << bad.front() << "\n" << doc.dump(1);

  std::set<std::string> threads;
  for (const json& m : Of(doc, "M"))
    if (m["name"] == "thread_name") threads.insert(m["args"]["name"].get<std::string>());
  EXPECT_EQ(threads, (std::set<std::string>{"T0", "T1", "T2"}));

  std::multiset<std::string> spans;
  for (const json& b : Of(doc, "B")) spans.insert(b["name"].get<std::string>());
  // T1 releases a while holding b: the b span is split, so b opens twice on T1.
  EXPECT_EQ(spans.count("a held"), 2u);  // T1 and T2 (T2 releases in order)
  EXPECT_GE(spans.count("b held"), 3u);
  EXPECT_EQ(spans.count("wait cv"), 1u);
  // m is held before the wait and again after it.
  EXPECT_EQ(spans.count("m held"), 2u);
  EXPECT_EQ(spans.count("thread T1"), 1u);
  // Two forks and two joins, each a flow from one thread to another.
  EXPECT_EQ(Of(doc, "s").size(), 4u);
  EXPECT_EQ(Of(doc, "f").size(), 4u);

  size_t race_marks = 0, deadlock_marks = 0;
  for (const json& i : Of(doc, "i")) {
    const std::string name = i["name"];
    race_marks += name.rfind("data race", 0) == 0;
    deadlock_marks += name.rfind("deadlock", 0) == 0;
    EXPECT_EQ(i["ts"].get<double>(), i["args"]["event"].get<double>()) << "a mark sits at its event";
  }
  EXPECT_GE(race_marks, 2u);
  EXPECT_EQ(deadlock_marks, 4u);  // two threads: held and blocked acquisitions

  const json bare = Export("--no-findings");
  EXPECT_TRUE(Of(bare, "i").empty());
}

TEST_F(TimelineTest, WindowKeepsItsEventsOnly) {
  const json doc = Export("--no-findings --window 3:8");
  const std::vector<std::string> bad = Violations(doc);
  EXPECT_TRUE(bad.empty()) << bad.front();
  for (const json& e : doc["traceEvents"]) {
    if (e["ph"] == "M") continue;
    EXPECT_GE(e["ts"].get<double>(), 3.0) << e.dump();
    EXPECT_LE(e["ts"].get<double>(), 8.0) << e.dump();  // a span ends after its last event
  }
  EXPECT_FALSE(Of(doc, "B").empty());
}

TEST_F(TimelineTest, LargeWindowsAndBadOptionsGetOneLine) {
  auto capped = Seer("export --format perfetto --no-findings --max-events 5 " + trace_);
  EXPECT_EQ(capped.code, 2);
  ASSERT_EQ(capped.ErrLines().size(), 1u) << capped.err;
  EXPECT_NE(capped.err.find("the window holds 21 events, more than --max-events 5"), std::string::npos) << capped.err;
  EXPECT_NE(capped.err.find("--window"), std::string::npos) << capped.err;
  EXPECT_TRUE(capped.out.empty());

  for (const char* window : {"8:3", "x:4", "3", ":", "1:2:3"}) {
    auto r = Seer(std::string("export --format perfetto --no-findings --window ") + window + " " + trace_);
    EXPECT_EQ(r.code, 2) << window;
    EXPECT_EQ(r.ErrLines().size(), 1u) << r.err;
    EXPECT_NE(r.err.find("--window"), std::string::npos) << r.err;
  }
  auto past = Seer("export --format perfetto --no-findings --window 100: " + trace_);
  EXPECT_EQ(past.code, 2);
  EXPECT_NE(past.err.find("holds no event"), std::string::npos) << past.err;

  auto std_window = Seer("export --window 1:2 " + trace_);
  EXPECT_EQ(std_window.code, 2);
  EXPECT_NE(std_window.err.find("apply to --format perfetto"), std::string::npos) << std_window.err;
}

}  // namespace
}  // namespace seer
