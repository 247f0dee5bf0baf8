// Ring writers that are not one pthread each, end to end (docs/runtime.md,
// "Ground rules: one writer per ring"): threads made with raw clone() that
// share their creator's TLS block, and signal handlers that interrupt the
// runtime's own appends (and its atomics' stripe locks). Each program is recorded many times with the seer
// binary, built with seer-cc (gcc and clang) and unmodified with the runtime
// preloaded: every recording must exit 0, the trace must check out (seer
// info, the order checks of tests/recorder/trace_check.h) and hold every lock
// pair and thread the program counted. Before the runtime kept such writers
// apart, the recorder found the rings corrupt ("... delivered twice") in most
// tries of the clone program and in some of the signal program.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include "seer/event.h"
#include "tests/recorder/trace_check.h"
#include "tests/support/test_scale.h"

namespace seer {
namespace {

// Eight tries (the corruption showed in 3 of 8 tries of the signal program);
// two under the sanitizers (tests/support/test_scale.h).
constexpr int kTries = test::Iterations(8);

std::string Program(const std::string& name) { return std::string(SEER_RT_TEST_PROGRAMS) + "/" + name; }

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

class ReentryTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/seer_reentry_test_XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
  }
  void TearDown() override { std::system(("rm -rf " + dir_).c_str()); }

  // Runs `command` (bounded: 60 s) with its output in files; its exit status.
  int Run(const std::string& command) {
    const std::string line = "timeout 60 " + command + " >" + dir_ + "/out 2>" + dir_ + "/err";
    const int status = std::system(line.c_str());
    out_ = ReadFile(dir_ + "/out");
    err_ = ReadFile(dir_ + "/err");
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  }

  // The number after "name=" in the program's output (base 0: hex with 0x, else decimal).
  static uint64_t Field(const std::string& out, const std::string& name, int base = 10) {
    const size_t at = out.find(name + "=");
    if (at == std::string::npos) return ~0ull;
    return std::strtoull(out.c_str() + at + name.size() + 1, nullptr, base);
  }

  // Records `program` (`mode`: --sync) and checks the trace; the program's output in *out.
  void RecordAndCheck(const std::string& program, const std::string& mode, std::string* out,
                      testing::LoadedTrace* trace) {
    const std::string path = dir_ + "/trace.seer";
    std::remove(path.c_str());
    ASSERT_EQ(Run(std::string(SEER_BINARY) + " record --sync=" + mode + " -o " + path + " -- " + program), 0)
        << "seer record failed:\n"
        << err_;
    *out = out_;
    ASSERT_EQ(Run(std::string(SEER_BINARY) + " info " + path), 0) << err_;
    ASSERT_NE(out_.find("complete:     yes"), std::string::npos) << out_;
    const Status s = testing::LoadTrace(path, trace);
    ASSERT_TRUE(s.ok()) << s.ToString();
    EXPECT_EQ(testing::CheckOrder(*trace), "");
  }

  // The clone() program: every thread and every lock pair, every try.
  void CloneThreads(const std::string& program, const std::string& mode) {
    for (int i = 0; i < kTries; ++i) {
      SCOPED_TRACE("try " + std::to_string(i));
      std::string out;
      testing::LoadedTrace trace;
      ASSERT_NO_FATAL_FAILURE(RecordAndCheck(program, mode, &out, &trace));
      const uint64_t threads = Field(out, "threads"), pairs = Field(out, "lock_pairs");
      ASSERT_NE(pairs, ~0ull) << out;
      EXPECT_EQ(trace.Count(EventKind::kThreadBegin), threads) << testing::KindSummary(trace);
      EXPECT_EQ(trace.Count(EventKind::kThreadEnd), threads) << testing::KindSummary(trace);
      // A fork for each clone()d thread and the warm-up pthread.
      EXPECT_EQ(trace.Count(EventKind::kFork), threads - 1) << testing::KindSummary(trace);
      EXPECT_EQ(trace.Count(EventKind::kAcquire), pairs) << testing::KindSummary(trace);
      EXPECT_EQ(trace.Count(EventKind::kRelease), pairs) << testing::KindSummary(trace);
    }
  }

  // The signal program: every lock pair, the handlers' on their mutex.
  void SignalHandlers(const std::string& program, const std::string& mode) {
    uint64_t handled_total = 0;
    for (int i = 0; i < kTries; ++i) {
      SCOPED_TRACE("try " + std::to_string(i));
      std::string out;
      testing::LoadedTrace trace;
      ASSERT_NO_FATAL_FAILURE(RecordAndCheck(program, mode, &out, &trace));
      const uint64_t handled = Field(out, "handled"), pairs = Field(out, "lock_pairs");
      const uint64_t handler_lock = Field(out, "handler_lock", 16);
      ASSERT_NE(handler_lock, ~0ull) << out;
      handled_total += handled;
      EXPECT_EQ(trace.Count(EventKind::kAcquire), pairs) << testing::KindSummary(trace);
      EXPECT_EQ(trace.Count(EventKind::kRelease), pairs) << testing::KindSummary(trace);
      uint64_t handler_pairs = 0;
      for (const Event& e : trace.events)
        if (e.kind == EventKind::kAcquire && e.object == handler_lock) ++handler_pairs;
      EXPECT_EQ(handler_pairs, handled);
      // The two threads, and a signal ring for each that ran a handler.
      EXPECT_GE(trace.Count(EventKind::kThreadBegin), 2u + (handled > 0 ? 1 : 0));
      EXPECT_LE(trace.Count(EventKind::kThreadBegin), 4u);
    }
    // Not a test of nothing: the timer fired while the threads were in the runtime.
    EXPECT_GT(handled_total, 0u);
  }

  // The atomics program: no try hangs (the handler's atomic on the stripe its
  // thread holds waited for ever before), every atomic took effect, and each
  // is in the trace or counted lost.
  void SignalAtomics(const std::string& program) {
    uint64_t handled_total = 0, lost_total = 0;
    for (int i = 0; i < kTries; ++i) {
      SCOPED_TRACE("try " + std::to_string(i));
      std::string out;
      testing::LoadedTrace trace;
      ASSERT_NO_FATAL_FAILURE(RecordAndCheck(program, "inproc", &out, &trace));
      const uint64_t handled = Field(out, "handled"), ops = Field(out, "ops"), counter = Field(out, "counter");
      ASSERT_NE(counter, ~0ull) << out;
      EXPECT_EQ(counter, ops + handled) << out;
      const auto lost = trace.info.counters.lost.find("runtime-ring");
      const uint64_t lost_rmw =
          lost == trace.info.counters.lost.end() ? 0 : lost->second[static_cast<int>(EventKind::kAtomicRmw)];
      // The handler's two adds (its counter's and `handled`'s) each time.
      EXPECT_EQ(trace.Count(EventKind::kAtomicRmw) + lost_rmw, ops + 2 * handled) << testing::KindSummary(trace);
      handled_total += handled;
      lost_total += lost_rmw;
    }
    // Not a test of nothing: handlers ran, and some on a stripe their thread held.
    EXPECT_GT(handled_total, 0u);
    EXPECT_GT(lost_total, 0u);
  }

  std::string dir_, out_, err_;
};

TEST_F(ReentryTest, CloneThreadsGcc) { CloneThreads(Program("clone_threads_gcc"), "inproc"); }
TEST_F(ReentryTest, CloneThreadsClang) { CloneThreads(Program("clone_threads_clang"), "inproc"); }
TEST_F(ReentryTest, CloneThreadsPreloaded) { CloneThreads(Program("clone_threads_plain"), "preload"); }

TEST_F(ReentryTest, SignalHandlersGcc) { SignalHandlers(Program("signal_in_runtime_gcc"), "inproc"); }
TEST_F(ReentryTest, SignalHandlersClang) { SignalHandlers(Program("signal_in_runtime_clang"), "inproc"); }
TEST_F(ReentryTest, SignalHandlersPreloaded) { SignalHandlers(Program("signal_in_runtime_plain"), "preload"); }

TEST_F(ReentryTest, SignalHandlerAtomicsGcc) { SignalAtomics(Program("signal_atomics_in_runtime_gcc")); }
TEST_F(ReentryTest, SignalHandlerAtomicsClang) { SignalAtomics(Program("signal_atomics_in_runtime_clang")); }

}  // namespace
}  // namespace seer
