// AsyncTraceWriter: events and table calls reach the real writer in their order,
// and the real writer's errors come back.
#include "store/async_writer.h"

#include <gtest/gtest.h>

#include "interop/std_writer.h"
#include "tests/support/cli_test_util.h"

namespace seer::store {
namespace {

// Records what it receives; fails the Append after `fail_after` events.
class RecordingWriter final : public TraceWriter {
 public:
  explicit RecordingWriter(uint64_t fail_after = ~0ull) : fail_after_(fail_after) {}
  void SetMeta(const std::string& key, const std::string&) override { log.push_back("meta " + key); }
  void AddThread(const ThreadInfo& t) override { log.push_back("thread " + t.name); }
  void AddModule(const ModuleInfo& m) override { log.push_back("module " + m.path); }
  void SetName(Namespace, uint64_t id, const std::string& name) override {
    log.push_back("name " + std::to_string(id) + " " + name);
  }
  void AddLost(const std::string& where, EventKind, uint64_t n) override {
    log.push_back("lost " + where + " " + std::to_string(n));
  }
  void AddClockSample(uint64_t ns) override { log.push_back("clock " + std::to_string(ns)); }
  Status Append(const Event& e) override {
    if (events == fail_after_) return Status::IOError("disk full");
    log.push_back("event " + std::to_string(e.pc));
    ++events;
    return Status::Ok();
  }
  Status Flush() override {
    log.push_back("flush");
    return Status::Ok();
  }
  Status Close() override {
    log.push_back("close");
    return Status::Ok();
  }
  uint64_t events_written() const override { return events; }

  std::vector<std::string> log;
  uint64_t events = 0;

 private:
  uint64_t fail_after_;
};

Event At(uint64_t pc) {
  Event e;
  e.pc = pc;
  return e;
}

TEST(AsyncTraceWriterTest, KeepsTheOrderOfEventsAndTableCalls) {
  RecordingWriter target;
  std::vector<std::string> expected;
  {
    AsyncTraceWriter w(&target);
    w.SetMeta("source", "x");
    expected.push_back("meta source");
    for (uint64_t i = 0; i < 100000; ++i) {
      if (i % 9999 == 0) {
        w.SetName(Namespace::kVariable, i, "v");
        expected.push_back("name " + std::to_string(i) + " v");
      }
      ASSERT_TRUE(w.Append(At(i)).ok());
      expected.push_back("event " + std::to_string(i));
    }
    w.AddThread({0, -1, -1, "main"});
    w.AddLost("ring", EventKind::kRead, 3);
    w.AddClockSample(1234);
    expected.push_back("thread main");
    expected.push_back("lost ring 3");
    expected.push_back("clock 1234");
    ASSERT_TRUE(w.Flush().ok());
    expected.push_back("flush");
    EXPECT_EQ(w.events_written(), 100000u);
    ASSERT_TRUE(w.Append(At(7)).ok());
    expected.push_back("event 7");
    ASSERT_TRUE(w.Close().ok());
    expected.push_back("close");
  }
  EXPECT_EQ(target.log, expected);
}

// A target that takes runs: it must get every event once, in order, and the
// table calls between the same events as when events come one at a time.
class RunRecordingWriter final : public TraceWriter, public RunAppender {
 public:
  void SetMeta(const std::string& key, const std::string& v) override { inner.SetMeta(key, v); }
  void AddThread(const ThreadInfo& t) override { inner.AddThread(t); }
  void AddModule(const ModuleInfo& m) override { inner.AddModule(m); }
  void SetName(Namespace ns, uint64_t id, const std::string& name) override { inner.SetName(ns, id, name); }
  void AddLost(const std::string& where, EventKind k, uint64_t n) override { inner.AddLost(where, k, n); }
  void AddClockSample(uint64_t ns) override { inner.AddClockSample(ns); }
  Status Append(const Event& e) override {
    ++single;
    return inner.Append(e);
  }
  Status AppendRun(const Event* events, size_t n) override {
    ++runs;
    for (size_t i = 0; i < n; ++i) {
      Status s = inner.Append(events[i]);
      if (!s.ok()) return s;
    }
    return Status::Ok();
  }
  Status Flush() override { return inner.Flush(); }
  Status Close() override { return inner.Close(); }
  uint64_t events_written() const override { return inner.events; }

  RecordingWriter inner;
  uint64_t single = 0, runs = 0;
};

TEST(AsyncTraceWriterTest, RunsKeepTheOrderOfEventsAndTableCalls) {
  RecordingWriter one_by_one;
  RunRecordingWriter in_runs;
  {
    AsyncTraceWriter a(&one_by_one), b(&in_runs);
    std::vector<Event> run;
    for (uint64_t i = 0; i < 100000; ++i) {
      if (i % 7777 == 0) {  // a table call, on a run boundary of the producer
        ASSERT_TRUE(b.AppendRun(run.data(), run.size()).ok());
        run.clear();
        a.SetName(Namespace::kVariable, i, "v");
        b.SetName(Namespace::kVariable, i, "v");
      }
      ASSERT_TRUE(a.Append(At(i)).ok());
      run.push_back(At(i));
      if (run.size() == 1000) {  // runs that cross the writer's batches
        ASSERT_TRUE(b.AppendRun(run.data(), run.size()).ok());
        run.clear();
      }
    }
    ASSERT_TRUE(b.AppendRun(run.data(), run.size()).ok());
    EXPECT_EQ(b.events_written(), 100000u);
    ASSERT_TRUE(a.Close().ok());
    ASSERT_TRUE(b.Close().ok());
  }
  EXPECT_EQ(in_runs.inner.log, one_by_one.log);
  EXPECT_EQ(in_runs.single, 0u);  // everything came as runs
  EXPECT_GT(in_runs.runs, 13u);   // at least one per stretch between table calls
}

TEST(AsyncTraceWriterTest, ReturnsTheTargetsError) {
  RecordingWriter target(50000);
  AsyncTraceWriter w(&target);
  Status s;
  for (uint64_t i = 0; i < 1000000 && s.ok(); ++i) s = w.Append(At(i));
  if (s.ok()) s = w.Close();
  EXPECT_EQ(s.code(), Status::Code::kIOError);
  EXPECT_EQ(s.message(), "disk full");
  EXPECT_EQ(target.events, 50000u);
}

// The STD text writer needs each name before the first event that uses it.
TEST(AsyncTraceWriterTest, NamesArriveBeforeTheirEvents) {
  const std::string path = testing::TempDir() + "/async-names.std";
  std::FILE* f = std::fopen(path.c_str(), "w");
  ASSERT_NE(f, nullptr);
  interop::StdTextWriter text(f);
  {
    AsyncTraceWriter w(&text);
    for (uint64_t i = 0; i < 40000; ++i) {
      w.SetName(Namespace::kVariable, i, "x" + std::to_string(i));
      Event e;
      e.kind = EventKind::kRead;
      e.object = i;
      e.aux = 1;
      ASSERT_TRUE(w.Append(e).ok());
    }
    ASSERT_TRUE(w.Close().ok());
  }
  std::fclose(f);
  const std::string out = test::ReadFile(path);
  EXPECT_NE(out.find("T0|r(x0)|0\n"), std::string::npos);
  EXPECT_NE(out.find("T0|r(x39999)|0\n"), std::string::npos);
  EXPECT_EQ(out.find("(V"), std::string::npos) << "a fallback name: a name came after its event";
  std::remove(path.c_str());
}

}  // namespace
}  // namespace seer::store
