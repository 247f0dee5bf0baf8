// `seer record` with real uprobes on real processes (tests/programs/): exact event
// counts per kind and per thread as `seer info --json` prints them, lock semantics
// in the recorded order, attach by PID and detach, a crashing target, a killed
// recorder, lost events. These need root (CAP_BPF + CAP_PERFMON) and are skipped,
// loudly, without it.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "tests/recorder/trace_check.h"

namespace seer::testing {
namespace {

using nlohmann::json;
// Events of one thread per kind name, as `seer info --json` lists them (no zeros).
using KindCounts = std::map<std::string, uint64_t>;

constexpr const char* kSeer = SEER_BINARY;
const std::string kPrograms = SEER_TEST_PROGRAMS;

// Every recorded thread begins and ends once; `counts` adds what it did in between.
KindCounts Lifecycle(KindCounts counts) {
  counts["thread_begin"] = 1;
  counts["thread_end"] = 1;
  return counts;
}

// The index of the first wait that no earlier signal pays for (each signal pays for
// one wait), or -1: a post or wake must precede the wait it ends.
int64_t WaitWithoutSignal(const LoadedTrace& trace) {
  int64_t tokens = 0;
  for (const auto& e : trace.events) {
    if (e.kind == EventKind::kSignal) ++tokens;
    if (e.kind == EventKind::kWait && tokens-- <= 0) return static_cast<int64_t>(e.index);
  }
  return -1;
}

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
    // These tests are about the eBPF recorder: --sync=auto would preload the
    // runtime into these uninstrumented programs (tests/recorder/preload_test.cc).
    std::vector<std::string> argv = {kSeer, "record", "-q", "--sync=ebpf", "-o", trace_path_};
    argv.insert(argv.end(), extra.begin(), extra.end());
    argv.push_back("--");
    argv.push_back(kPrograms + "/" + program);
    argv.insert(argv.end(), args.begin(), args.end());
    return WaitExit(Spawn(argv, dir_ + "/stderr"));
  }

  // Runs `seer info --json` on the trace (which decodes every chunk and checks it
  // against the stored counters) and keeps its output in info_.
  void ReadInfo() {
    const std::string out_path = dir_ + "/info.json", err_path = dir_ + "/info.err";
    int fd = open(out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    ASSERT_GE(fd, 0);
    int rc = WaitExit(Spawn({kSeer, "info", "--json", trace_path_}, err_path, fd));
    close(fd);
    ASSERT_EQ(rc, 0) << "seer info: " << ReadFile(err_path);
    info_ = json::parse(ReadFile(out_path), nullptr, false);
    ASSERT_FALSE(info_.is_discarded()) << "seer info --json printed no JSON: " << ReadFile(out_path);
    ASSERT_TRUE(info_["thread_list"].is_array());
  }

  // Thread `tid`'s events per kind in `seer info --json`.
  KindCounts Kinds(uint32_t tid) const {
    KindCounts out;
    for (const json& t : info_["thread_list"]) {
      if (t.value("tid", -1) != static_cast<int64_t>(tid)) continue;
      EXPECT_TRUE(t.contains("by_kind")) << "seer info --json lists no kinds per thread";
      if (!t.contains("by_kind")) continue;
      for (const auto& [kind, n] : t["by_kind"].items()) out[kind] = n.get<uint64_t>();
    }
    return out;
  }
  size_t InfoThreads() const { return info_["thread_list"].size(); }
  std::string InfoMeta(const std::string& key) const {
    return info_["meta"].contains(key) ? info_["meta"][key].get<std::string>() : std::string();
  }

  // Reads the trace through `seer info --json` and through TraceReader, and checks
  // what every recording must satisfy, the lock-semantics order included.
  void LoadAndCheck() {
    ASSERT_NO_FATAL_FAILURE(ReadInfo());
    EXPECT_EQ(info_["source"], "record");
    EXPECT_EQ(info_["lost_events"], 0) << info_["lost"].dump();
    EXPECT_EQ(InfoMeta("record.forced_order"), "0");
    // One uprobe_multi link (Linux 6.6, which CI has) unless the test run asks
    // for the per-function fallback (RecordTest.PerFunctionUprobes).
    if (getenv("SEER_PER_FUNCTION_UPROBES") != nullptr)
      EXPECT_EQ(InfoMeta("record.uprobe_links"), "one per function (SEER_PER_FUNCTION_UPROBES is set)");
    else
      EXPECT_EQ(InfoMeta("record.uprobe_links"), "uprobe_multi");
    Status st = LoadTrace(trace_path_, &trace_);
    ASSERT_TRUE(st.ok()) << st.ToString();
    EXPECT_EQ(CheckOrder(trace_), "") << KindSummary(trace_);
  }

  std::string Stderr() const { return ReadFile(dir_ + "/stderr"); }

  // The program an exec of process `pid` started, recorded into the pid's
  // second trace (recorder/ebpf/ebpf_family.h), read into info_:
  // lock_inversion's three threads, and no lock call of the loader or of
  // libc's start-up (it was stopped at its exec, before ld.so ran).
  void CheckExecdLockInversion(const std::string& pid) {
    trace_path_ = trace_path_.substr(0, trace_path_.size() - std::string(".seer").size()) + "." + pid + ".2.seer";
    ASSERT_NO_FATAL_FAILURE(LoadAndCheck());
    ASSERT_EQ(InfoThreads(), 3u) << info_.dump();
    EXPECT_EQ(Kinds(0), Lifecycle({{"fork", 2}, {"join", 2}})) << "libc/ld.so internal locking leaked into main?";
    EXPECT_EQ(Kinds(1), Lifecycle({{"acquire", 2}, {"release", 2}}));
    EXPECT_EQ(Kinds(2), Lifecycle({{"acquire", 2}, {"release", 2}}));
  }

  std::string dir_;
  std::string trace_path_;
  LoadedTrace trace_;
  json info_;
};

TEST_F(RecordTest, LockOrderInversionBetweenTwoThreads) {
  ASSERT_EQ(Record("lock_inversion"), 0) << Stderr();
  LoadAndCheck();
  ASSERT_EQ(InfoThreads(), 3u) << info_.dump();
  EXPECT_EQ(info_["complete"], true);
  EXPECT_EQ(Kinds(0), Lifecycle({{"fork", 2}, {"join", 2}})) << "libc/ld.so internal locking leaked into main?";
  EXPECT_EQ(Kinds(1), Lifecycle({{"acquire", 2}, {"release", 2}}));
  EXPECT_EQ(Kinds(2), Lifecycle({{"acquire", 2}, {"release", 2}}));
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

// The spin lock's probe sits after its `lock decl; jne` (x86-64 uprobes refuse
// a lock-prefixed first instruction), on the multi link as on its own one.
TEST_F(RecordTest, MutexRwlockAndSpinLockAcquisitions) {
  ASSERT_EQ(Record("contended_locks"), 0) << Stderr();
  LoadAndCheck();
  ASSERT_EQ(InfoThreads(), 2u) << info_.dump();
  EXPECT_EQ(Kinds(0), Lifecycle({{"fork", 1}, {"join", 1}, {"acquire", 3}, {"release", 3}}));
  EXPECT_EQ(Kinds(1), Lifecycle({{"acquire", 4}, {"release", 4}}));
  EXPECT_EQ(Stderr().find("pthread_spin_lock"), std::string::npos) << Stderr();
}

TEST_F(RecordTest, ProducerConsumerWithConditionVariable) {
  ASSERT_EQ(Record("producer_consumer"), 0) << Stderr();
  LoadAndCheck();
  ASSERT_EQ(InfoThreads(), 3u);
  EXPECT_EQ(Kinds(0), Lifecycle({{"fork", 2}, {"join", 2}}));
  for (uint32_t t : {1u, 2u}) {
    // How often a thread waits depends on the schedule; each wait ends, woken.
    KindCounts k = Kinds(t);
    EXPECT_EQ(k["cond_wait_begin"], k["cond_wait_end"]);
    k.erase("cond_wait_begin");
    k.erase("cond_wait_end");
    EXPECT_EQ(k, Lifecycle({{"acquire", 100}, {"release", 100}, {"signal", 100}}))
        << "thread " << t << " (a wait here would be a libc-internal futex wait)";
  }
}

TEST_F(RecordTest, ReaderWriterLock) {
  ASSERT_EQ(Record("rwlock"), 0) << Stderr();
  LoadAndCheck();
  ASSERT_EQ(InfoThreads(), 5u);
  EXPECT_EQ(Kinds(0), Lifecycle({{"fork", 4}, {"join", 4}}));
  for (uint32_t t = 1; t <= 4; ++t) EXPECT_EQ(Kinds(t), Lifecycle({{"acquire", 110}, {"release", 110}}));
  uint64_t shared = 0, exclusive = 0;
  for (const auto& e : trace_.events)
    if (e.kind == EventKind::kAcquire) (e.mode == static_cast<uint8_t>(LockMode::kShared) ? shared : exclusive)++;
  EXPECT_EQ(shared, 400u);
  EXPECT_EQ(exclusive, 40u);
}

TEST_F(RecordTest, Semaphores) {
  ASSERT_EQ(Record("semaphore"), 0) << Stderr();
  LoadAndCheck();
  ASSERT_EQ(InfoThreads(), 3u);
  EXPECT_EQ(Kinds(0), Lifecycle({{"fork", 2}, {"join", 2}}));
  EXPECT_EQ(Kinds(1), Lifecycle({{"wait", 50}})) << "the consumer (created first)";
  EXPECT_EQ(Kinds(2), Lifecycle({{"signal", 50}})) << "the producer";
  // Every wait follows at least as many posts (the semaphore starts at 0).
  EXPECT_EQ(WaitWithoutSignal(trace_), -1) << "a wait before its post";
}

TEST_F(RecordTest, Barrier) {
  ASSERT_EQ(Record("barrier"), 0) << Stderr();
  LoadAndCheck();
  ASSERT_EQ(InfoThreads(), 5u);
  EXPECT_EQ(Kinds(0), Lifecycle({{"fork", 4}, {"join", 4}}));
  for (uint32_t t = 1; t <= 4; ++t)
    EXPECT_EQ(Kinds(t), Lifecycle({{"barrier_arrive", 10}, {"barrier_depart", 10}})) << "thread " << t;
  uint64_t arrivals = 0, departures = 0;
  for (const auto& e : trace_.events) {
    if (e.kind == EventKind::kBarrierArrive) ++arrivals;
    if (e.kind == EventKind::kBarrierDepart) {
      ASSERT_GE(arrivals, (departures / 4 + 1) * 4) << "departure before all arrivals at " << e.index;
      ++departures;
    }
  }
}

TEST_F(RecordTest, CustomFutexLock) {
  ASSERT_EQ(Record("futex_handoff"), 0) << Stderr();
  LoadAndCheck();
  ASSERT_EQ(InfoThreads(), 2u);
  EXPECT_EQ(Kinds(0), Lifecycle({{"fork", 1}, {"join", 1}, {"signal", 3}}));
  EXPECT_EQ(Kinds(1), Lifecycle({{"wait", 3}}));
  // Each wake precedes the wait-return it caused.
  EXPECT_EQ(WaitWithoutSignal(trace_), -1) << "a wait-return before its wake";
}

TEST_F(RecordTest, FutexWaitvReturnsTheWordThatWokeIt) {
  ASSERT_EQ(Record("futex_waitv"), 0) << "the program checks which word woke each wait; " << Stderr();
  LoadAndCheck();
  ASSERT_EQ(InfoThreads(), 2u);
  EXPECT_EQ(Kinds(0), Lifecycle({{"fork", 1}, {"join", 1}, {"signal", 3}}));
  EXPECT_EQ(Kinds(1), Lifecycle({{"wait", 3}})) << "futex_waitv wait-returns missing";
  // Rounds wake word 1, word 0, word 1: each wait-return names the word just woken,
  // after its wake.
  std::vector<uint64_t> waits;
  uint64_t last_wake = 0;
  for (const auto& e : trace_.events) {
    if (e.kind == EventKind::kSignal) last_wake = e.object;
    if (e.kind == EventKind::kWait) {
      EXPECT_EQ(e.object, last_wake) << "wait-return at " << e.index << " is not on the word woken before it";
      waits.push_back(e.object);
    }
  }
  ASSERT_EQ(waits.size(), 3u);
  EXPECT_NE(waits[0], waits[1]);
  EXPECT_EQ(waits[0], waits[2]);
  EXPECT_EQ(waits[0] - waits[1], 4u) << "words[1] and words[0] are 4 bytes apart";
}

TEST_F(RecordTest, ExecEndsTheTraceAndTheNewProgramHasItsOwn) {
  // The target runs two threads, then execs lock_inversion (same libc, so its lock
  // calls would hit the same uprobes): none of those may enter the trace.
  ASSERT_EQ(Record("exec_after_threads", {}, {kPrograms + "/lock_inversion"}), 0) << Stderr();
  LoadAndCheck();
  EXPECT_EQ(info_["complete"], true);
  ASSERT_EQ(InfoThreads(), 3u) << "threads of the exec'ed program were recorded: " << info_.dump();
  EXPECT_EQ(Kinds(0), Lifecycle({{"fork", 2}, {"join", 2}})) << "main ends at its exec";
  EXPECT_EQ(Kinds(1), Lifecycle({{"acquire", 10}, {"release", 10}}));
  EXPECT_EQ(Kinds(2), Lifecycle({{"acquire", 10}, {"release", 10}}));
  EXPECT_EQ(InfoMeta("record.exec_not_followed"), "0");
  EXPECT_EQ(InfoMeta("record.exit_status"), "") << "the exit status is the new program's";
  const std::string pid = InfoMeta("record.pid");
  EXPECT_NE(InfoMeta("record.processes").find(pid + " exec'd, child of "), std::string::npos) << info_.dump();
  EXPECT_EQ(Stderr(), "") << "-q, and every process recorded";
  CheckExecdLockInversion(pid);
  EXPECT_EQ(InfoMeta("record.process").rfind("exec'd; parent process ", 0), 0u) << info_.dump();
}

TEST_F(RecordTest, ExecFromAThreadEndsTheTrace) {
  // A third thread execs while main waits to join it: the kernel ends main and the
  // workers are gone already; the exec'ing thread (which takes the process's pid)
  // ends at the exec.
  ASSERT_EQ(Record("exec_after_threads", {}, {"--from-thread", kPrograms + "/lock_inversion"}), 0) << Stderr();
  LoadAndCheck();
  ASSERT_EQ(InfoThreads(), 4u) << "threads of the exec'ed program were recorded: " << info_.dump();
  EXPECT_EQ(Kinds(0), Lifecycle({{"fork", 3}, {"join", 2}}));
  EXPECT_EQ(Kinds(1), Lifecycle({{"acquire", 10}, {"release", 10}}));
  EXPECT_EQ(Kinds(2), Lifecycle({{"acquire", 10}, {"release", 10}}));
  EXPECT_EQ(Kinds(3), Lifecycle({}));
  EXPECT_EQ(InfoMeta("record.exec_not_followed"), "0");
  const std::string pid = InfoMeta("record.pid");
  CheckExecdLockInversion(pid);
}

TEST_F(RecordTest, LibraryLoadedAfterTheStartIsInTheModuleMap) {
  ASSERT_EQ(Record("dlopen_lock"), 0) << Stderr();
  LoadAndCheck();
  ASSERT_EQ(InfoThreads(), 1u);
  EXPECT_EQ(Kinds(0), Lifecycle({{"acquire", 5}, {"release", 5}})) << "the loader's own locking leaked?";
  const ModuleInfo* plugin = nullptr;
  std::set<std::pair<std::string, uint64_t>> stored;
  for (const auto& m : trace_.info.modules) {
    EXPECT_TRUE(stored.insert({m.path, m.base}).second) << "module stored twice: " << m.path;
    if (m.path.find("libdlopen_plugin.so") != std::string::npos) plugin = &m;
  }
  ASSERT_NE(plugin, nullptr) << "the dlopen'ed library is missing from the module map";
  EXPECT_FALSE(plugin->build_id.empty());
  // The module map places the library's lock calls in it.
  for (const auto& e : trace_.events) {
    if (e.kind != EventKind::kAcquire) continue;
    EXPECT_TRUE(e.pc >= plugin->base && e.pc < plugin->base + plugin->size) << std::hex << e.pc;
  }
}

TEST_F(RecordTest, StdMutexConditionVariableThread) {
  ASSERT_EQ(Record("cxx_threads"), 0) << Stderr();
  LoadAndCheck();
  ASSERT_EQ(InfoThreads(), 3u);
  EXPECT_EQ(
      Kinds(0),
      Lifecycle(
          {{"fork", 2}, {"join", 2}, {"acquire", 1}, {"release", 1}, {"cond_wait_begin", 1}, {"cond_wait_end", 1}}));
  // Whichever worker finishes last notifies main.
  KindCounts w1 = Kinds(1), w2 = Kinds(2);
  EXPECT_EQ(w1["signal"] + w2["signal"], 1u);
  w1.erase("signal");
  w2.erase("signal");
  EXPECT_EQ(w1, Lifecycle({{"acquire", 501}, {"release", 501}}));
  EXPECT_EQ(w2, Lifecycle({{"acquire", 501}, {"release", 501}}));
}

TEST_F(RecordTest, FailedTrylockAndTimedlockAreNotAcquisitions) {
  ASSERT_EQ(Record("trylock_fail"), 0) << Stderr();
  LoadAndCheck();
  ASSERT_EQ(InfoThreads(), 3u);
  EXPECT_EQ(Kinds(0), Lifecycle({{"fork", 2}, {"join", 2}, {"acquire", 1}, {"release", 1}}));
  EXPECT_EQ(Kinds(1), Lifecycle({})) << "a failed trylock/timedlock was recorded";
  EXPECT_EQ(Kinds(2), Lifecycle({{"acquire", 1}, {"release", 1}}));
}

TEST_F(RecordTest, SixtyFourThreadsThousandLocksEach) {
  ASSERT_EQ(Record("many_threads"), 0) << Stderr();
  LoadAndCheck();
  ASSERT_EQ(InfoThreads(), 65u);
  EXPECT_EQ(Kinds(0), Lifecycle({{"fork", 64}, {"join", 64}}));
  for (uint32_t t = 1; t <= 64; ++t)
    EXPECT_EQ(Kinds(t), Lifecycle({{"acquire", 1000}, {"release", 1000}})) << "thread " << t;
}

TEST_F(RecordTest, StaticallyLinkedTargetIsProbedInItself) {
  ASSERT_EQ(Record("lock_inversion_static"), 0) << Stderr();
  LoadAndCheck();
  ASSERT_EQ(InfoThreads(), 3u);
  EXPECT_EQ(Kinds(1), Lifecycle({{"acquire", 2}, {"release", 2}}));
  EXPECT_EQ(Kinds(2), Lifecycle({{"acquire", 2}, {"release", 2}}));
  EXPECT_NE(InfoMeta("record.probed_binary").find("lock_inversion_static"), std::string::npos);
}

TEST_F(RecordTest, TargetCrashLeavesReadableTrace) {
  EXPECT_EQ(Record("crash"), 128 + SIGSEGV) << Stderr();
  LoadAndCheck();
  ASSERT_EQ(InfoThreads(), 1u);
  EXPECT_EQ(Kinds(0), Lifecycle({{"acquire", 100}, {"release", 100}}));
  EXPECT_EQ(InfoMeta("record.exit_status"), std::to_string(128 + SIGSEGV));
}

TEST_F(RecordTest, AttachByPidAndDetachLeavesTargetRunning) {
  int out[2];
  ASSERT_EQ(pipe(out), 0);
  pid_t target = Spawn({kPrograms + "/forever"}, dir_ + "/target.err", out[1]);
  close(out[1]);
  char buf[6] = {};
  ASSERT_EQ(read(out[0], buf, 6), 6);  // "ready\n"
  trace_path_ = dir_ + "/attach.seer";
  // --sync=ebpf: under auto, -p loads the runtime into the process instead (inject_test.cc).
  int rc = WaitExit(
      Spawn({kSeer, "record", "-q", "--sync=ebpf", "-o", trace_path_, "-p", std::to_string(target), "--duration", "1"},
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

  ASSERT_NO_FATAL_FAILURE(ReadInfo());
  EXPECT_EQ(InfoThreads(), 2u);
  EXPECT_EQ(InfoMeta("record.mode"), "attach");
  EXPECT_EQ(info_["lost_events"], 0);
  // Both threads existed before and outlive the recording: a begin, no end.
  EXPECT_EQ(Kinds(0), KindCounts({{"thread_begin", 1}})) << "main only sleeps in pause()";
  KindCounts ticker = Kinds(1);
  EXPECT_GT(ticker["acquire"], 100u) << info_.dump();
  // The lock may be held at detach (one acquire without its release), never more.
  EXPECT_LE(ticker["acquire"] - ticker["release"], 1u);
  EXPECT_EQ(ticker["thread_end"], 0u);
  Status st = LoadTrace(trace_path_, &trace_);
  ASSERT_TRUE(st.ok()) << st.ToString();
  EXPECT_EQ(CheckOrder(trace_), "");
  EXPECT_FALSE(trace_.info.modules.empty());
}

TEST_F(RecordTest, KilledRecorderLeavesCommittedPrefix) {
  trace_path_ = dir_ + "/killed.seer";
  pid_t seer =
      Spawn({kSeer, "record", "-q", "--sync=ebpf", "-o", trace_path_, "--", kPrograms + "/forever"}, dir_ + "/stderr");
  // Until a commit holds the target's acquires: attaching the probes alone takes
  // 2-6 s here, longer on a loaded machine, so a fixed sleep may kill seer first.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  bool committed = false;
  while (!committed && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(250));
    LoadedTrace partial;
    committed = LoadTrace(trace_path_, &partial).ok() && partial.Count(EventKind::kAcquire) > 100;
  }
  kill(seer, SIGKILL);
  ASSERT_TRUE(committed) << "no acquires committed within 60 s";
  WaitExit(seer);
  Status st = LoadTrace(trace_path_, &trace_);
  ASSERT_TRUE(st.ok()) << st.ToString();
  pid_t target = static_cast<pid_t>(atol(trace_.info.Meta("record.pid").c_str()));
  if (target > 0) kill(target, SIGKILL);
  EXPECT_FALSE(trace_.info.complete);
  EXPECT_EQ(CheckOrder(trace_), "");
  // seer info decodes every committed chunk and finds them consistent.
  ASSERT_NO_FATAL_FAILURE(ReadInfo());
  EXPECT_EQ(info_["complete"], false);
  EXPECT_TRUE(info_.contains("warning"));
  EXPECT_GT(Kinds(1)["acquire"], 100u) << info_.dump();
}

TEST_F(RecordTest, TinyRingBufferReportsLostEvents) {
  ASSERT_EQ(Record("many_threads", {"--ringbuf-size", "4096"}), 0) << Stderr();
  ASSERT_NO_FATAL_FAILURE(ReadInfo());
  ASSERT_TRUE(info_["lost"].contains("bpf-ringbuf")) << "no loss reported with a 4 KiB ring buffer: " << info_.dump();
  EXPECT_GT(info_["lost_events"].get<uint64_t>(), 0u);
  // Nothing is invented: what was kept plus what was lost is what happened.
  const uint64_t kept = info_["by_kind"]["acquire"].get<uint64_t>();
  const uint64_t lost = info_["lost"]["bpf-ringbuf"].value("acquire", uint64_t{0});
  EXPECT_LT(kept, 64000u);
  EXPECT_GT(lost, 0u);
  EXPECT_LE(kept + lost, 64000u + 200u) << "more acquires than the program made (a few are ld.so's, dropped)";
}

TEST_F(RecordTest, ClearErrors) {
  trace_path_ = dir_ + "/x.seer";
  EXPECT_EQ(WaitExit(Spawn({kSeer, "record", "--sync=ebpf", "-o", trace_path_, "--", dir_ + "/no-such-binary"},
                           dir_ + "/stderr")),
            2);
  EXPECT_NE(Stderr().find("cannot run " + dir_ + "/no-such-binary: No such file or directory"), std::string::npos)
      << Stderr();
  EXPECT_EQ(WaitExit(Spawn({kSeer, "record", "-o", trace_path_, "-p", "999999999"}, dir_ + "/stderr")), 2);
  EXPECT_NE(Stderr().find("no such process"), std::string::npos) << Stderr();
  // eBPF needs the privileges (a launch in the default mode does not:
  // preload_test.cc). setpriv is util-linux's, on every Debian system.
  const std::string never = dir_ + "/never.seer";
  EXPECT_EQ(WaitExit(Spawn({"/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "--inh-caps=-all",
                            kSeer, "record", "--sync=ebpf", "-o", never, "--", "/bin/true"},
                           dir_ + "/stderr")),
            2);
  EXPECT_NE(Stderr().find("needs root or CAP_BPF and CAP_PERFMON"), std::string::npos) << Stderr();
  EXPECT_NE(access(never.c_str(), F_OK), 0) << "a refused recording left " << never;
}

// A seer-cc build of another seer: its runtime never claims the recorder's
// area (the layout's version differs), so nothing would be recorded. seer
// says so and fails, instead of writing an empty trace with exit 0.
TEST_F(RecordTest, RuntimeOfAnotherVersionIsAnError) {
  trace_path_ = dir_ + "/foreign.seer";
  EXPECT_EQ(
      WaitExit(Spawn({kSeer, "record", "-o", trace_path_, "--", kPrograms + "/foreign_runtime"}, dir_ + "/stderr")), 2)
      << Stderr();
  EXPECT_NE(Stderr().find("never claimed the recording area: the program was built with another version of seer-cc"),
            std::string::npos)
      << Stderr();
}

// A start that fails after the trace was created (no such program or
// process, the kernel refusing the BPF programs) leaves the trace that was at
// the output path as it was, and no empty trace where there was none.
TEST_F(RecordTest, AFailedStartKeepsThePreviousTrace) {
  ASSERT_EQ(Record("lock_inversion"), 0) << Stderr();
  const std::string previous = ReadFile(trace_path_);
  ASSERT_GT(previous.size(), 0u);
  const std::vector<std::vector<std::string>> failing = {
      {kSeer, "record", "--sync=ebpf", "-o", trace_path_, "--", dir_ + "/no-such-binary"},
      {kSeer, "record", "--sync=inproc", "-o", trace_path_, "--", dir_ + "/no-such-binary"},
      {kSeer, "record", "-o", trace_path_, "-p", "999999999"},
      {kPrograms + "/deny_bpf", kSeer, "record", "--sync=ebpf", "-o", trace_path_, "--", "/bin/true"},
  };
  for (const auto& argv : failing) {
    SCOPED_TRACE(argv[argv.size() - 1]);
    EXPECT_EQ(WaitExit(Spawn(argv, dir_ + "/stderr")), 2) << Stderr();
    EXPECT_TRUE(ReadFile(trace_path_) == previous) << "the previous trace was changed: " << Stderr();
  }
  const std::string none = dir_ + "/none.seer";
  EXPECT_EQ(
      WaitExit(Spawn({kSeer, "record", "--sync=ebpf", "-o", none, "--", dir_ + "/no-such-binary"}, dir_ + "/stderr")),
      2);
  EXPECT_NE(access(none.c_str(), F_OK), 0) << "a failed start left a trace";
  // Nothing set aside is left behind.
  for (const auto& entry : std::filesystem::directory_iterator(dir_))
    EXPECT_EQ(entry.path().filename().string().find(".previous-"), std::string::npos) << entry.path();
}

}  // namespace
}  // namespace seer::testing
