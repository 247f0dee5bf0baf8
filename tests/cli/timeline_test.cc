// `seer export --format perfetto`: the Chrome trace-event JSON of an imported
// trace (data/formats.std: hand-over-hand locking, a condition wait, fork and
// join, a race and a deadlock) obeys the format's rules (every B has its E on
// its thread, properly nested; timestamps never go back on a track; every flow
// start has its end; every track is named), holds the spans and findings the
// trace implies, and --window and --max-events bound it with clear messages.
// (tests/predictor/report/formats loads a timeline in headless Chromium.)
#include <gtest/gtest.h>

#include <map>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "seer/trace.h"
#include "tests/support/cli_test_util.h"

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

// A recorded-like trace with clock samples and a contended lock: timestamps are
// the events' times (µs), a lock_wait is drawn as a span that ends at its
// acquire, and --window takes times.
class TimelineTimesTest : public test::TempDirTest {
 protected:
  void SetUp() override {
    TempDirTest::SetUp();
    trace_ = Path("times.seer");
    std::unique_ptr<TraceWriter> w;
    Status s = TraceWriter::Create(trace_, TraceWriterOptions(), &w);
    ASSERT_TRUE(s.ok()) << s.ToString();
    w->AddThread({0, -1, -1, "T0"});
    w->AddThread({1, -1, 0, "T1"});
    w->SetName(Namespace::kLock, kLock, "L");
    auto add = [&](uint32_t tid, EventKind kind, uint64_t object, uint64_t aux = 0) {
      Event e;
      e.tid = tid;
      e.kind = kind;
      e.object = object;
      e.aux = aux;
      e.pc = 100 + w->events_written();
      ASSERT_TRUE(w->Append(e).ok());
    };
    add(1, EventKind::kWrite, 0x1000, 8);            // 0
    add(0, EventKind::kAcquire, kLock);              // 1
    w->AddClockSample(1'000'000);                    // events 0, 1 by 1 ms
    add(1, EventKind::kLockWait, kLock, 1'500'000);  // 2: T1 waited 1.5 ms
    add(0, EventKind::kRelease, kLock);              // 3
    w->AddClockSample(4'000'000);                    // events 2, 3 by 4 ms
    add(1, EventKind::kAcquire, kLock);              // 4
    add(1, EventKind::kRelease, kLock);              // 5
    add(0, EventKind::kWrite, 0x2000, 8);            // 6
    w->AddClockSample(7'000'000);                    // events 4..6 by 7 ms
    ASSERT_TRUE(w->Close().ok());
  }
  json Export(const std::string& args) {
    auto r = Seer("export --format perfetto --no-findings --no-symbolize " + trace_ + " " + args);
    EXPECT_EQ(r.code, 0) << r.err;
    return json::parse(r.out, nullptr, false);
  }
  static constexpr uint64_t kLock = 77;
  std::string trace_;
};

TEST_F(TimelineTimesTest, TimestampsAreTimesAndWaitsEndAtTheirAcquire) {
  const json doc = Export("");
  const std::vector<std::string> bad = Violations(doc);
  ASSERT_TRUE(bad.empty()) << bad.front() << "\n" << doc.dump(1);
  // Events spread evenly between samples: 0, 500, | 1000, 2500, | 4000, 5000, 6000 µs.
  std::map<std::string, std::vector<double>> begins;
  for (const json& b : Of(doc, "B")) begins[b["name"].get<std::string>()].push_back(b["ts"].get<double>());
  EXPECT_EQ(begins["L held"], (std::vector<double>{500, 4000}));
  ASSERT_EQ(begins["wait for L"].size(), 1u) << doc.dump(1);
  // The wait ended at T1's acquire (4000 µs) and lasted 1.5 ms.
  EXPECT_DOUBLE_EQ(begins["wait for L"][0], 2500);
  for (const json& b : Of(doc, "B"))
    if (b["name"] == "wait for L") {
      EXPECT_EQ(b["tid"], 1);
      EXPECT_EQ(b["args"]["waited_ns"], 1'500'000);
      EXPECT_EQ(b["args"]["event"], 2);
    }
  bool wait_ended = false;
  for (const json& e : Of(doc, "E"))
    if (e["name"] == "wait for L") {
      wait_ended = true;
      EXPECT_DOUBLE_EQ(e["ts"].get<double>(), 4000);
    }
  EXPECT_TRUE(wait_ended);
  EXPECT_NE(doc["otherData"]["time"].get<std::string>().find("clock samples"), std::string::npos);
}

TEST_F(TimelineTimesTest, WindowByTime) {
  // 2 ms to 5 ms: the events at 2500, 4000 µs (2 ms falls between 1000 and 2500).
  const json doc = Export("--window 2ms:5ms");
  const std::vector<std::string> bad = Violations(doc);
  ASSERT_TRUE(bad.empty()) << bad.front();
  EXPECT_EQ(doc["otherData"]["window"], "3:5");
  const json later = Export("--window 4.5ms:");
  EXPECT_EQ(later["otherData"]["window"], "5:7");
  const json us = Export("--window :600us");
  EXPECT_EQ(us["otherData"]["window"], "0:2");

  auto empty = Seer("export --format perfetto --no-findings --window 8s:9s " + trace_);
  EXPECT_EQ(empty.code, 2);
  EXPECT_NE(empty.err.find("holds no event"), std::string::npos) << empty.err;
  for (const char* window : {"1ms:5", "5ms:1ms", "xms:", "-1ms:"}) {
    auto r = Seer(std::string("export --format perfetto --no-findings --window ") + window + " " + trace_);
    EXPECT_EQ(r.code, 2) << window;
    EXPECT_EQ(r.ErrLines().size(), 1u) << r.err;
    EXPECT_NE(r.err.find("--window"), std::string::npos) << r.err;
  }
}

TEST_F(TimelineTest, TimeWindowOnATraceWithoutClockIsRefused) {
  auto r = Seer("export --format perfetto --no-findings --window 1ms:2ms " + trace_);
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.ErrLines().size(), 1u) << r.err;
  EXPECT_NE(r.err.find("no clock samples"), std::string::npos) << r.err;
}

TEST_F(TimelineTest, LockWaitsWithoutClockSpanFromTheWaitToTheAcquire) {
  const std::string std_path = Path("wait.std");
  {
    std::FILE* f = std::fopen(std_path.c_str(), "w");
    ASSERT_NE(f, nullptr);
    std::fputs("T0|acq(l)|1\nT1|lock_wait(l waited=900)|2\nT0|rel(l)|3\nT1|acq(l)|4\nT1|rel(l)|5\n", f);
    std::fclose(f);
  }
  const std::string t = Path("wait.seer");
  ASSERT_EQ(Seer("import -q " + std_path + " -o " + t).code, 0);
  auto r = Seer("export --format perfetto --no-findings " + t);
  ASSERT_EQ(r.code, 0) << r.err;
  const json doc = json::parse(r.out, nullptr, false);
  ASSERT_TRUE(Violations(doc).empty());
  int waits = 0;
  for (const json& b : Of(doc, "B"))
    if (b["name"] == "wait for l") {
      ++waits;
      EXPECT_EQ(b["ts"].get<double>(), 1.0);  // the lock_wait's position
      EXPECT_EQ(b["args"]["waited_ns"], 900);
    }
  for (const json& e : Of(doc, "E")) {
    if (e["name"] == "wait for l") {
      EXPECT_EQ(e["ts"].get<double>(), 3.0);  // the acquire's
    }
  }
  EXPECT_EQ(waits, 1);
}

}  // namespace
}  // namespace seer
