// `seer record` with real uprobes on real processes (tests/programs/): exact event
// counts per kind and per thread, lock semantics in the recorded order, attach by
// PID and detach, a crashing target, a killed recorder, lost events. These need
// root (CAP_BPF + CAP_PERFMON) and are skipped, loudly, without it.
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "tests/recorder/trace_check.h"

namespace seer::testing {
namespace {

constexpr const char* kSeer = SEER_BINARY;
const std::string kPrograms = SEER_TEST_PROGRAMS;

// Spawns argv with stderr sent to `err_path`; returns the pid.
pid_t Spawn(const std::vector<std::string>& argv, const std::string& err_path, int stdout_fd = -1) {
  pid_t pid = fork();
  if (pid == 0) {
    int fd = open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd >= 0) dup2(fd, 2);
    if (stdout_fd >= 0) dup2(stdout_fd, 1);
    std::vector<char*> args;
    for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    execv(args[0], args.data());
    _exit(127);
  }
  return pid;
}

int WaitExit(pid_t pid) {
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

class RecordTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (geteuid() != 0)
      GTEST_SKIP() << "NOT RUN: seer record needs root (CAP_BPF + CAP_PERFMON) to attach uprobes; "
                      "run the recorder tests as root";
    char tmpl[] = "/tmp/seer_record_test_XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
  }
  void TearDown() override {
    if (!dir_.empty() && std::system(("rm -rf " + dir_).c_str()) != 0) ADD_FAILURE() << "cannot remove " << dir_;
  }

  // Records `program args...` into dir_/name.seer; returns seer's exit code.
  int Record(const std::string& program, std::vector<std::string> extra = {}, std::vector<std::string> args = {}) {
    trace_path_ = dir_ + "/" + program + ".seer";
    std::vector<std::string> argv = {kSeer, "record", "-q", "-o", trace_path_};
    argv.insert(argv.end(), extra.begin(), extra.end());
    argv.push_back("--");
    argv.push_back(kPrograms + "/" + program);
    argv.insert(argv.end(), args.begin(), args.end());
    return WaitExit(Spawn(argv, dir_ + "/stderr"));
  }

  // Loads the trace and checks what every recording must satisfy.
  void LoadAndCheck() {
    Status st = LoadTrace(trace_path_, &trace_);
    ASSERT_TRUE(st.ok()) << st.ToString();
    EXPECT_EQ(CheckOrder(trace_), "") << KindSummary(trace_);
    EXPECT_EQ(trace_.info.Meta(meta::kSource), "record");
    EXPECT_EQ(trace_.info.counters.TotalLost(), 0u);
    EXPECT_EQ(trace_.info.Meta("record.forced_order"), "0");
  }

  std::string Stderr() const { return ReadFile(dir_ + "/stderr"); }

  std::string dir_;
  std::string trace_path_;
  LoadedTrace trace_;
};

TEST_F(RecordTest, LockOrderInversionBetweenTwoThreads) {
  ASSERT_EQ(Record("lock_inversion"), 0) << Stderr();
  LoadAndCheck();
  ASSERT_EQ(trace_.info.threads.size(), 3u) << KindSummary(trace_);
  EXPECT_TRUE(trace_.info.complete);
  EXPECT_EQ(trace_.Count(EventKind::kAcquire), 4u) << KindSummary(trace_);
  EXPECT_EQ(trace_.Count(EventKind::kRelease), 4u);
  EXPECT_EQ(trace_.Count(EventKind::kFork, 0), 2u);
  EXPECT_EQ(trace_.Count(EventKind::kJoin, 0), 2u);
  EXPECT_EQ(trace_.Count(EventKind::kAcquire, 0), 0u) << "libc/ld.so internal locking leaked into main";
  std::vector<uint64_t> order1, order2;
  for (const auto& e : trace_.events) {
    if (e.kind != EventKind::kAcquire) continue;
    (e.tid == 1 ? order1 : order2).push_back(e.object);
  }
  ASSERT_EQ(order1.size(), 2u);
  ASSERT_EQ(order2.size(), 2u);
  EXPECT_EQ(order1[0], order2[1]);
  EXPECT_EQ(order1[1], order2[0]);
  EXPECT_EQ(trace_.info.threads[1].parent, 0);
  EXPECT_EQ(trace_.info.threads[0].name, "lock_inversion");
  bool program_module = false;
  for (const auto& m : trace_.info.modules)
    if (m.path.find("lock_inversion") != std::string::npos && !m.build_id.empty()) program_module = true;
  EXPECT_TRUE(program_module) << "module map lacks the program with its build-id";
}

TEST_F(RecordTest, ProducerConsumerWithConditionVariable) {
  ASSERT_EQ(Record("producer_consumer"), 0) << Stderr();
  LoadAndCheck();
  ASSERT_EQ(trace_.info.threads.size(), 3u);
  for (uint32_t t : {1u, 2u}) {
    EXPECT_EQ(trace_.Count(EventKind::kAcquire, t), 100u);
    EXPECT_EQ(trace_.Count(EventKind::kRelease, t), 100u);
    EXPECT_EQ(trace_.Count(EventKind::kSignal, t), 100u);
    EXPECT_EQ(trace_.Count(EventKind::kCondWaitBegin, t), trace_.Count(EventKind::kCondWaitEnd, t));
  }
  EXPECT_EQ(trace_.Count(EventKind::kWait), 0u) << "libc-internal futex waits leaked";
}

TEST_F(RecordTest, ReaderWriterLock) {
  ASSERT_EQ(Record("rwlock"), 0) << Stderr();
  LoadAndCheck();
  ASSERT_EQ(trace_.info.threads.size(), 5u);
  uint64_t shared = 0, exclusive = 0;
  for (const auto& e : trace_.events)
    if (e.kind == EventKind::kAcquire) (e.mode == static_cast<uint8_t>(LockMode::kShared) ? shared : exclusive)++;
  EXPECT_EQ(shared, 400u);
  EXPECT_EQ(exclusive, 40u);
  for (uint32_t t = 1; t <= 4; ++t) EXPECT_EQ(trace_.Count(EventKind::kAcquire, t), 110u);
}

TEST_F(RecordTest, Semaphores) {
  ASSERT_EQ(Record("semaphore"), 0) << Stderr();
  LoadAndCheck();
  EXPECT_EQ(trace_.Count(EventKind::kSignal), 50u) << KindSummary(trace_);
  EXPECT_EQ(trace_.Count(EventKind::kWait), 50u);
  EXPECT_EQ(trace_.ThreadsWith(EventKind::kSignal, 50).size(), 1u);
  EXPECT_EQ(trace_.ThreadsWith(EventKind::kWait, 50).size(), 1u);
  // Every wait follows at least as many posts (the semaphore starts at 0).
  int64_t tokens = 0;
  for (const auto& e : trace_.events) {
    if (e.kind == EventKind::kSignal) ++tokens;
    if (e.kind == EventKind::kWait) {
      ASSERT_GT(tokens--, 0) << "wait before its post at " << e.index;
    }
  }
}

TEST_F(RecordTest, Barrier) {
  ASSERT_EQ(Record("barrier"), 0) << Stderr();
  LoadAndCheck();
  EXPECT_EQ(trace_.Count(EventKind::kBarrierArrive), 40u) << KindSummary(trace_);
  EXPECT_EQ(trace_.Count(EventKind::kBarrierDepart), 40u);
  for (uint32_t t = 1; t <= 4; ++t) EXPECT_EQ(trace_.Count(EventKind::kBarrierArrive, t), 10u);
  uint64_t arrivals = 0, departures = 0;
  for (const auto& e : trace_.events) {
    if (e.kind == EventKind::kBarrierArrive) ++arrivals;
    if (e.kind == EventKind::kBarrierDepart) {
      ASSERT_GE(arrivals, (departures / 4 + 1) * 4) << "departure before all arrivals at " << e.index;
      ++departures;
    }
  }
  EXPECT_EQ(trace_.Count(EventKind::kSignal) + trace_.Count(EventKind::kWait), 0u);
}

TEST_F(RecordTest, CustomFutexLock) {
  ASSERT_EQ(Record("futex_handoff"), 0) << Stderr();
  LoadAndCheck();
  EXPECT_EQ(trace_.Count(EventKind::kSignal, 0), 3u) << KindSummary(trace_);
  EXPECT_EQ(trace_.Count(EventKind::kWait, 1), 3u);
  EXPECT_EQ(trace_.Count(EventKind::kSignal) + trace_.Count(EventKind::kWait), 6u);
}

TEST_F(RecordTest, StdMutexConditionVariableThread) {
  ASSERT_EQ(Record("cxx_threads"), 0) << Stderr();
  LoadAndCheck();
  ASSERT_EQ(trace_.info.threads.size(), 3u);
  EXPECT_EQ(trace_.Count(EventKind::kAcquire, 1), 501u);
  EXPECT_EQ(trace_.Count(EventKind::kAcquire, 2), 501u);
  EXPECT_EQ(trace_.Count(EventKind::kCondWaitBegin, 0), 1u) << KindSummary(trace_);
  EXPECT_EQ(trace_.Count(EventKind::kCondWaitEnd, 0), 1u);
  EXPECT_EQ(trace_.Count(EventKind::kSignal), 1u);
  EXPECT_EQ(trace_.Count(EventKind::kJoin, 0), 2u);
}

TEST_F(RecordTest, FailedTrylockAndTimedlockAreNotAcquisitions) {
  ASSERT_EQ(Record("trylock_fail"), 0) << Stderr();
  LoadAndCheck();
  ASSERT_EQ(trace_.info.threads.size(), 3u);
  EXPECT_EQ(trace_.Count(EventKind::kAcquire, 0), 1u);
  EXPECT_EQ(trace_.Count(EventKind::kAcquire, 1), 0u) << "a failed trylock/timedlock was recorded";
  EXPECT_EQ(trace_.Count(EventKind::kAcquire, 2), 1u);
  EXPECT_EQ(trace_.Count(EventKind::kRelease, 2), 1u);
}

TEST_F(RecordTest, SixtyFourThreadsThousandLocksEach) {
  ASSERT_EQ(Record("many_threads"), 0) << Stderr();
  LoadAndCheck();
  ASSERT_EQ(trace_.info.threads.size(), 65u);
  EXPECT_EQ(trace_.ThreadsWith(EventKind::kAcquire, 1000).size(), 64u) << KindSummary(trace_);
  EXPECT_EQ(trace_.ThreadsWith(EventKind::kRelease, 1000).size(), 64u);
  EXPECT_EQ(trace_.Count(EventKind::kFork, 0), 64u);
  EXPECT_EQ(trace_.Count(EventKind::kJoin, 0), 64u);
  EXPECT_EQ(trace_.Count(EventKind::kThreadEnd), 65u);
}

TEST_F(RecordTest, StaticallyLinkedTargetIsProbedInItself) {
  ASSERT_EQ(Record("lock_inversion_static"), 0) << Stderr();
  LoadAndCheck();
  ASSERT_EQ(trace_.info.threads.size(), 3u);
  EXPECT_EQ(trace_.Count(EventKind::kAcquire, 1), 2u) << KindSummary(trace_);
  EXPECT_EQ(trace_.Count(EventKind::kAcquire, 2), 2u);
  EXPECT_NE(trace_.info.Meta("record.probed_binary").find("lock_inversion_static"), std::string::npos);
}

TEST_F(RecordTest, TargetCrashLeavesReadableTrace) {
  EXPECT_EQ(Record("crash"), 128 + SIGSEGV) << Stderr();
  LoadAndCheck();
  EXPECT_EQ(trace_.Count(EventKind::kAcquire), 100u);
  EXPECT_EQ(trace_.Count(EventKind::kThreadEnd), 1u);
  EXPECT_EQ(trace_.info.Meta("record.exit_status"), std::to_string(128 + SIGSEGV));
}

TEST_F(RecordTest, AttachByPidAndDetachLeavesTargetRunning) {
  int out[2];
  ASSERT_EQ(pipe(out), 0);
  pid_t target = Spawn({kPrograms + "/forever"}, dir_ + "/target.err", out[1]);
  close(out[1]);
  char buf[6] = {};
  ASSERT_EQ(read(out[0], buf, 6), 6);  // "ready\n"
  trace_path_ = dir_ + "/attach.seer";
  int rc = WaitExit(Spawn({kSeer, "record", "-q", "-o", trace_path_, "-p", std::to_string(target), "--duration", "1"},
                          dir_ + "/stderr"));
  EXPECT_EQ(rc, 0) << Stderr();
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  EXPECT_EQ(kill(target, 0), 0);
  int status = 0;
  EXPECT_EQ(waitpid(target, &status, WNOHANG), 0) << "the target died after detach";
  kill(target, SIGTERM);
  waitpid(target, &status, 0);
  EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM) << "target ended by something else";
  close(out[0]);

  Status st = LoadTrace(trace_path_, &trace_);
  ASSERT_TRUE(st.ok()) << st.ToString();
  EXPECT_EQ(CheckOrder(trace_), "");
  EXPECT_EQ(trace_.info.threads.size(), 2u);
  EXPECT_EQ(trace_.info.Meta("record.mode"), "attach");
  EXPECT_GT(trace_.Count(EventKind::kAcquire, 1), 100u) << KindSummary(trace_);
  EXPECT_FALSE(trace_.info.modules.empty());
}

TEST_F(RecordTest, KilledRecorderLeavesCommittedPrefix) {
  trace_path_ = dir_ + "/killed.seer";
  pid_t seer = Spawn({kSeer, "record", "-q", "-o", trace_path_, "--", kPrograms + "/forever"}, dir_ + "/stderr");
  std::this_thread::sleep_for(std::chrono::milliseconds(2500));
  kill(seer, SIGKILL);
  WaitExit(seer);
  Status st = LoadTrace(trace_path_, &trace_);
  ASSERT_TRUE(st.ok()) << st.ToString();
  pid_t target = static_cast<pid_t>(atol(trace_.info.Meta("record.pid").c_str()));
  if (target > 0) kill(target, SIGKILL);
  EXPECT_FALSE(trace_.info.complete);
  EXPECT_GT(trace_.Count(EventKind::kAcquire), 100u) << KindSummary(trace_);
  EXPECT_EQ(CheckOrder(trace_), "");
}

TEST_F(RecordTest, TinyRingBufferReportsLostEvents) {
  ASSERT_EQ(Record("many_threads", {"--ringbuf-size", "4096"}), 0) << Stderr();
  Status st = LoadTrace(trace_path_, &trace_);
  ASSERT_TRUE(st.ok()) << st.ToString();
  auto it = trace_.info.counters.lost.find("bpf-ringbuf");
  ASSERT_NE(it, trace_.info.counters.lost.end()) << "no loss reported with a 4 KiB ring buffer";
  EXPECT_GT(trace_.info.counters.TotalLost(), 0u);
  // Nothing is invented: what was kept plus what was lost is what happened.
  EXPECT_LT(trace_.Count(EventKind::kAcquire), 64000u);
}

TEST_F(RecordTest, ClearErrors) {
  trace_path_ = dir_ + "/x.seer";
  EXPECT_EQ(WaitExit(Spawn({kSeer, "record", "-o", trace_path_, "--", dir_ + "/no-such-binary"}, dir_ + "/stderr")), 2);
  EXPECT_NE(Stderr().find("binary not found"), std::string::npos) << Stderr();
  EXPECT_EQ(WaitExit(Spawn({kSeer, "record", "-o", trace_path_, "-p", "999999999"}, dir_ + "/stderr")), 2);
  EXPECT_NE(Stderr().find("no such process"), std::string::npos) << Stderr();
  if (access("/usr/bin/setpriv", X_OK) == 0) {
    EXPECT_EQ(WaitExit(Spawn({"/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", kSeer, "record",
                              "-o", "/tmp/never.seer", "--", "/bin/true"},
                             dir_ + "/stderr")),
              2);
    EXPECT_NE(Stderr().find("needs root or CAP_BPF and CAP_PERFMON"), std::string::npos) << Stderr();
  }
}

}  // namespace
}  // namespace seer::testing
