// `seer record -p PID` by injection (runtime/attach_inject.cc,
// recorder/runtime_modes/): the runtime is loaded into a running, uninstrumented
// program (tests/programs/inject_target.c) that loops on locks, records its
// lock pairs and a lock-order inversion planted after the attach, and lets it
// go at the end: its calls are put back (its GOT slot for pthread_mutex_lock
// points into libseer_rt.so while recorded, into libc after; also when seer is
// killed), it runs on and exits with correct output. A static program cannot take the runtime (auto falls back to
// uprobes, --sync=inject is refused) and a missing process is refused. Real
// processes, ptrace and (for the fallback and the futex tracepoints) eBPF:
// root needed, skipped loudly without.
#include <dirent.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include <nlohmann/json.hpp>

#include "tests/recorder/child_process.h"
#include "tests/recorder/trace_check.h"
#include "tests/support/program_suite.h"

namespace seer::testing {
namespace {

using Clock = std::chrono::steady_clock;

constexpr const char* kSeer = SEER_BINARY;
const std::string kPrograms = SEER_TEST_PROGRAMS;

// True while a thread of `pid` is named `name` (the injected runtime's detach thread).
bool HasThread(pid_t pid, const std::string& name) {
  const std::string dir = "/proc/" + std::to_string(pid) + "/task";
  DIR* d = opendir(dir.c_str());
  if (d == nullptr) return false;
  bool found = false;
  while (dirent* e = readdir(d)) {
    if (e->d_name[0] == '.') continue;
    std::ifstream comm(dir + "/" + e->d_name + "/comm");
    std::string line;
    if (std::getline(comm, line) && line == name) found = true;
  }
  closedir(d);
  return found;
}

// Waits up to `limit` until HasThread(pid, name) == want.
bool WaitThread(pid_t pid, const std::string& name, bool want, std::chrono::seconds limit) {
  const auto deadline = Clock::now() + limit;
  while (HasThread(pid, name) != want) {
    if (Clock::now() >= deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return true;
}

// The file that holds the function the target's GOT slot for `symbol` points
// at now ("" when unknown): libc while the program runs on its own,
// libseer_rt.so while it is recorded by injection. The slot is found with
// readelf (binutils) in the executable, and read through /proc/PID/mem.
std::string SlotTarget(pid_t pid, const std::string& exe, const std::string& symbol) {
  uint64_t slot_offset = 0;
  if (FILE* p = popen(("readelf -rW " + exe).c_str(), "r")) {
    char line[512];
    while (fgets(line, sizeof line, p) != nullptr) {
      const std::string l(line);
      if (l.find("R_X86_64_JUMP_SLOT") != std::string::npos && l.find(" " + symbol + "@") != std::string::npos)
        slot_offset = std::stoull(l.substr(0, l.find(' ')), nullptr, 16);
    }
    pclose(p);
  }
  std::ifstream maps("/proc/" + std::to_string(pid) + "/maps");
  std::vector<std::tuple<uint64_t, uint64_t, uint64_t, std::string>> mappings;  // start, end, offset, path
  uint64_t base = 0;
  for (std::string line; std::getline(maps, line);) {
    std::istringstream in(line);
    std::string range, perms, offset, dev, inode, path;
    in >> range >> perms >> offset >> dev >> inode >> path;
    const uint64_t start = std::stoull(range.substr(0, range.find('-')), nullptr, 16);
    const uint64_t end = std::stoull(range.substr(range.find('-') + 1), nullptr, 16);
    mappings.emplace_back(start, end, std::stoull(offset, nullptr, 16), path);
    if (path == exe && std::stoull(offset, nullptr, 16) == 0 && base == 0) base = start;
  }
  if (slot_offset == 0 || base == 0) return "";
  uint64_t value = 0;
  std::ifstream mem("/proc/" + std::to_string(pid) + "/mem", std::ios::binary);
  mem.seekg(static_cast<std::streamoff>(base + slot_offset));
  if (!mem.read(reinterpret_cast<char*>(&value), sizeof value)) return "";
  for (const auto& [start, end, offset, path] : mappings)
    if (value >= start && value < end) return path.substr(path.rfind('/') + 1);
  return "";
}

class InjectTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (geteuid() != 0)
      GTEST_SKIP() << "\n*** NOT RUN: seer record -p loads the runtime with ptrace and falls back to uprobes: "
                      "run the recorder tests as root ***";
    scratch_ = std::make_unique<test::ScratchDir>(std::string("seer-inject-") +
                                                  ::testing::UnitTest::GetInstance()->current_test_info()->name());
    // Where seer makes the directory of its children's socket: a seer killed
    // by a test leaves it behind, in the scratch folder rather than in /tmp.
    mkdir(Path("tmp").c_str(), 0700);
    setenv("TMPDIR", Path("tmp").c_str(), 1);
  }

  std::string Path(const std::string& name) const { return scratch_->Path(name); }

  // inject_family started and `seer record -o run.seer -p` attached to it
  // (`seer`), once the runtime is in: the process has its seer-detach thread.
  void RecordFamily(Child* seer, pid_t* pid) {
    *pid = StartTarget("inject_family");
    ASSERT_GT(*pid, 0);
    seer->Start({kSeer, "record", "-o", Path("run.seer"), "-p", std::to_string(*pid)}, Path("seer.err"));
    ASSERT_TRUE(WaitThread(*pid, "seer-detach", true, std::chrono::seconds(15)))
        << "the runtime was not injected: " << test::ReadWholeFile(Path("seer.err"));
  }

  // Ends inject_family (RecordFamily), which must exit 0.
  void StopFamily() {
    target_.Send("stop\n");
    EXPECT_EQ(target_.ReadLine(), "bye");
    EXPECT_EQ(target_.Wait(std::chrono::seconds(20)), 0) << test::ReadWholeFile(Path("target.err"));
  }

  // Starts a target program; its pid (0 if it did not start).
  pid_t StartTarget(const std::string& program) {
    target_.Start({kPrograms + "/" + program}, Path("target.err"));
    const std::string pid = target_.ReadLine();
    EXPECT_FALSE(pid.empty()) << "the target printed no pid: " << test::ReadWholeFile(Path("target.err"));
    return pid.empty() ? 0 : static_cast<pid_t>(std::stol(pid));
  }

  // "stop" to the target: it must print "ok TOTAL SUM INVERTED" with TOTAL ==
  // SUM (no lost increment) and exit with 0. Returns INVERTED.
  int StopTarget() {
    target_.Send("stop\n");
    const std::string line = target_.ReadLine();
    std::istringstream in(line);
    std::string ok;
    long total = -1, sum = -2;
    int inverted = -1;
    in >> ok >> total >> sum >> inverted;
    EXPECT_EQ(ok, "ok") << "the target's last line: '" << line << "'";
    EXPECT_EQ(total, sum) << line;
    EXPECT_GT(total, 0) << line;
    EXPECT_EQ(target_.Wait(std::chrono::seconds(20)), 0)
        << "the target did not exit cleanly: " << test::ReadWholeFile(Path("target.err"));
    return inverted;
  }

  std::unique_ptr<test::ScratchDir> scratch_;
  Child target_;
};

TEST_F(InjectTest, RecordsARunningProcessAndLetsItGo) {
  const pid_t pid = StartTarget("inject_target");
  ASSERT_GT(pid, 0);
  const std::string trace = Path("run.seer");
  const std::string exe = kPrograms + "/inject_target";
  const std::string syscall_slot_before = SlotTarget(pid, exe, "syscall");
  ASSERT_NE(syscall_slot_before, "");
  Child seer;
  seer.Start({kSeer, "record", "-o", trace, "-p", std::to_string(pid), "--duration", "4"}, Path("seer.err"));
  ASSERT_TRUE(WaitThread(pid, "seer-detach", true, std::chrono::seconds(15)))
      << "the runtime was not injected: " << test::ReadWholeFile(Path("seer.err"));
  EXPECT_EQ(SlotTarget(pid, exe, "pthread_mutex_lock"), "libseer_rt.so");
  EXPECT_EQ(SlotTarget(pid, exe, "syscall"), "libseer_rt.so");
  // After the attach: the release of the lock held since before it (left out
  // of the trace), the inversion, which must be in the trace, and three raw
  // futex handoffs through syscall().
  target_.Send("release\n");
  target_.Send("invert\n");
  EXPECT_EQ(target_.ReadLine(), "inverted");
  target_.Send("handoff\n");
  EXPECT_EQ(target_.ReadLine(), "handed");
  EXPECT_EQ(seer.Wait(std::chrono::seconds(60)), 0) << test::ReadWholeFile(Path("seer.err"));
  const std::string err = test::ReadWholeFile(Path("seer.err"));
  EXPECT_NE(err.find("threads (inject) -> "), std::string::npos) << err;
  // The runtime put the calls back and its thread ended; the program runs on.
  EXPECT_TRUE(WaitThread(pid, "seer-detach", false, std::chrono::seconds(5)));
  EXPECT_EQ(SlotTarget(pid, exe, "pthread_mutex_lock"), "libc.so.6");
  // Put back as it was (the program's lazy-binding stub when syscall() had
  // not been called before the attach).
  EXPECT_EQ(SlotTarget(pid, exe, "syscall"), syscall_slot_before);
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  EXPECT_EQ(StopTarget(), 2);

  LoadedTrace t;
  ASSERT_TRUE(LoadTrace(trace, &t).ok());
  // 3 counting workers and the holder were running before the attach, the two
  // inversion threads started after it.
  EXPECT_GT(t.Count(EventKind::kAcquire), 1000u) << KindSummary(t);
  EXPECT_GE(t.Count(EventKind::kRelease) + 8, t.Count(EventKind::kAcquire)) << KindSummary(t);
  EXPECT_EQ(t.Count(EventKind::kFork), 3u) << KindSummary(t);
  EXPECT_EQ(t.Count(EventKind::kJoin), 3u) << KindSummary(t);
  // The handoffs: main's three wakes, the new thread's three woken waits.
  EXPECT_EQ(t.Count(EventKind::kSignal), 3u) << KindSummary(t);
  EXPECT_EQ(t.Count(EventKind::kWait), 3u) << KindSummary(t);
  EXPECT_EQ(CheckOrder(t), "");
  EXPECT_EQ(t.info.Meta("record.sync"), "inject");
  EXPECT_GT(std::stol("0" + t.info.Meta("record.redirected_slots")), 0);
  EXPECT_GE(std::stol("0" + t.info.Meta("record.unmatched_releases")), 1);
  std::string info;
  ASSERT_EQ(scratch_->Run(std::string(kSeer) + " info " + trace, &info), 0) << info;
  EXPECT_NE(info.find("sync mode:    inject"), std::string::npos) << info;

  std::string out;
  ASSERT_EQ(
      scratch_->Run(
          std::string(kSeer) + " analyze " + trace + " --analysis deadlock --format json -o " + Path("a.json"), &out),
      0)
      << out;
  const nlohmann::json report = nlohmann::json::parse(test::ReadWholeFile(Path("a.json")), nullptr, false);
  ASSERT_TRUE(!report.is_discarded() && report.contains("deadlocks")) << test::ReadWholeFile(Path("a.json"));
  EXPECT_EQ(report["deadlocks"].size(), 1u) << report["deadlocks"].dump(2);
}

// seer killed while it records: the runtime notices that its recorder is gone,
// puts the calls back by itself, and the program runs on unharmed.
TEST_F(InjectTest, ProgramOutlivesAKilledRecorder) {
  const pid_t pid = StartTarget("inject_target");
  ASSERT_GT(pid, 0);
  Child seer;
  seer.Start({kSeer, "record", "-o", Path("run.seer"), "-p", std::to_string(pid)}, Path("seer.err"));
  ASSERT_TRUE(WaitThread(pid, "seer-detach", true, std::chrono::seconds(15)))
      << "the runtime was not injected: " << test::ReadWholeFile(Path("seer.err"));
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  kill(seer.pid, SIGKILL);
  EXPECT_EQ(seer.Wait(std::chrono::seconds(10)), 128 + SIGKILL);
  EXPECT_TRUE(WaitThread(pid, "seer-detach", false, std::chrono::seconds(5)))
      << "the runtime did not notice that its recorder died";
  EXPECT_EQ(SlotTarget(pid, kPrograms + "/inject_target", "pthread_mutex_lock"), "libc.so.6");
  target_.Send("invert\n");
  EXPECT_EQ(target_.ReadLine(), "inverted");
  EXPECT_EQ(StopTarget(), 2);
}

// The process ends while it is recorded (no --duration): the recording ends
// with it, and the trace is complete. A pipe's hand-off is in it, as the
// preloaded runtime models it. A child it forked meanwhile is recorded into a
// trace of its own.
TEST_F(InjectTest, RecordingEndsWhenTheProcessExits) {
  const pid_t pid = StartTarget("inject_target");
  ASSERT_GT(pid, 0);
  const std::string trace = Path("run.seer");
  Child seer;
  seer.Start({kSeer, "record", "-o", trace, "-p", std::to_string(pid)}, Path("seer.err"));
  ASSERT_TRUE(WaitThread(pid, "seer-detach", true, std::chrono::seconds(15)))
      << "the runtime was not injected: " << test::ReadWholeFile(Path("seer.err"));
  target_.Send("invert\n");
  EXPECT_EQ(target_.ReadLine(), "inverted");
  target_.Send("pipe\n");
  EXPECT_EQ(target_.ReadLine(), "piped");
  target_.Send("fork\n");
  EXPECT_EQ(target_.ReadLine(), "forked");
  EXPECT_EQ(StopTarget(), 2);
  EXPECT_EQ(seer.Wait(std::chrono::seconds(30)), 0) << test::ReadWholeFile(Path("seer.err"));
  const std::string err = test::ReadWholeFile(Path("seer.err"));
  EXPECT_NE(err.find("(forked by " + std::to_string(pid) + "): "), std::string::npos) << err;
  EXPECT_EQ(err.find("not recorded"), std::string::npos) << err;
  LoadedTrace t;
  ASSERT_TRUE(LoadTrace(trace, &t).ok());
  EXPECT_TRUE(t.info.complete);
  // The inversion's two threads and the pipe's writer.
  EXPECT_EQ(t.Count(EventKind::kFork), 3u) << KindSummary(t);
  // The write to the pipe and the read that received it.
  EXPECT_EQ(t.Count(EventKind::kSignal), 1u) << KindSummary(t);
  EXPECT_EQ(t.Count(EventKind::kWait), 1u) << KindSummary(t);
  EXPECT_EQ(t.info.Meta("record.forks_unrecorded"), "");
  EXPECT_EQ(CheckOrder(t), "");
}

// The processes an injected process forks (docs/recording.md, "Processes"):
// tests/programs/inject_family.c.

// What `command` prints on stdout.
std::string Stdout(const std::string& command) {
  std::string out;
  if (FILE* p = popen(command.c_str(), "r")) {
    char buf[4096];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
    pclose(p);
  }
  return out;
}

// `seer info --json TRACE`.
nlohmann::json Info(const std::string& trace) {
  return nlohmann::json::parse(Stdout(std::string(kSeer) + " info --json " + trace + " 2>/dev/null"), nullptr, false);
}

// The first word after `prefix` in `line` as a pid (0 when it does not start so).
pid_t PidAfter(const std::string& line, const std::string& prefix) {
  if (line.rfind(prefix, 0) != 0) return 0;
  return static_cast<pid_t>(std::atol(line.c_str() + prefix.size()));
}

// A child forked while recorded gets a trace of its own, with the race its
// threads have; seer is stopped as a user stops it (SIGTERM), and the process
// runs on unharmed: the child ended normally, a child forked after the detach
// is not recorded and runs correctly, the process exits cleanly.
TEST_F(InjectTest, ForkedChildIsRecordedIntoATraceOfItsOwn) {
  pid_t pid = 0;
  Child seer;
  ASSERT_NO_FATAL_FAILURE(RecordFamily(&seer, &pid));
  const std::string trace = Path("run.seer");
  target_.Send("fork\n");
  const std::string child_line = target_.ReadLine();
  const pid_t child = PidAfter(child_line, "child ");
  ASSERT_GT(child, 0) << child_line;
  const std::string c = std::to_string(child), p = std::to_string(pid);
  EXPECT_EQ(child_line, "child " + c + " ok 2000");
  EXPECT_EQ(target_.ReadLine(), "forked " + c + " 0");
  ASSERT_EQ(kill(seer.pid, SIGTERM), 0);
  EXPECT_EQ(seer.Wait(std::chrono::seconds(30)), 0) << test::ReadWholeFile(Path("seer.err"));
  const std::string err = test::ReadWholeFile(Path("seer.err"));
  const std::string child_trace = Path("run." + c + ".seer");
  EXPECT_NE(err.find("seer record: process " + c + " (forked by " + p + "): "), std::string::npos) << err;
  EXPECT_NE(err.find(" -> " + child_trace), std::string::npos) << err;
  EXPECT_EQ(err.find("not recorded"), std::string::npos) << err;

  // The child's trace: its thread and the two it made; the main trace names it.
  const nlohmann::json info = Info(child_trace);
  ASSERT_TRUE(info.is_object()) << child_trace;
  EXPECT_EQ(info.value("threads", 0), 3) << info.dump();
  EXPECT_TRUE(info.value("complete", false)) << info.dump();
  EXPECT_EQ(info["meta"].value("record.pid", ""), c);
  EXPECT_EQ(info["meta"].value("record.process", ""), "forked by process " + p);
  EXPECT_EQ(info["meta"].value("record.sync", ""), "inject");
  const nlohmann::json main_info = Info(trace);
  ASSERT_TRUE(main_info.is_object());
  EXPECT_NE(main_info["meta"].value("record.processes", "").find(child_trace), std::string::npos) << main_info.dump();
  std::string text;
  ASSERT_EQ(scratch_->Run(std::string(kSeer) + " info " + trace, &text), 0) << text;
  EXPECT_NE(text.find(child_trace), std::string::npos) << text;

  // The race: both threads' read()s into one variable, unordered.
  const nlohmann::json report =
      nlohmann::json::parse(Stdout(std::string(kSeer) + " analyze -a hb --format json " + child_trace), nullptr, false);
  ASSERT_FALSE(report.is_discarded());
  std::vector<std::string> pairs;
  for (const nlohmann::json& r : report["races"]["hb"]["pairs"])
    pairs.push_back(r["first"].value("function", "?") + "|" + r["second"].value("function", "?"));
  EXPECT_EQ(pairs, std::vector<std::string>{"fill_racy|fill_racy"}) << report.dump(2);

  // Let go: a child forked now is not recorded, and runs as it should.
  EXPECT_TRUE(WaitThread(pid, "seer-detach", false, std::chrono::seconds(5)));
  target_.Send("fork\n");
  const std::string again = target_.ReadLine();
  const pid_t second = PidAfter(again, "child ");
  EXPECT_EQ(again, "child " + std::to_string(second) + " ok 2000");
  EXPECT_EQ(target_.ReadLine(), "forked " + std::to_string(second) + " 0");
  struct stat st;
  EXPECT_NE(stat(Path("run." + std::to_string(second) + ".seer").c_str(), &st), 0);
  StopFamily();
}

// Links of type `type` ("raw_tracepoint", "uprobe_multi") among the open files of process `pid`.
int BpfLinks(pid_t pid, const std::string& type) {
  int n = 0;
  const std::string dir = "/proc/" + std::to_string(pid) + "/fdinfo";
  DIR* d = opendir(dir.c_str());
  if (d == nullptr) return 0;
  while (dirent* e = readdir(d)) {
    std::ifstream in(dir + "/" + e->d_name);
    for (std::string line; std::getline(in, line);)
      if (line == "link_type:\t" + type) ++n;
  }
  closedir(d);
  return n;
}

// `seer record --sync=ebpf -p` follows what the process forks after the
// attach (recorder/ebpf/ebpf_family.h): the child, stopped by the tracer until
// its probes were attached, has a trace of its own with every lock call of
// its threads; so has the program a child execs (/bin/sleep, with no runtime
// to ask for anything); the process is let go at the end and runs on.
TEST_F(InjectTest, EbpfAttachFollowsWhatTheProcessForksAndExecs) {
  const pid_t pid = StartTarget("inject_family");
  ASSERT_GT(pid, 0);
  const std::string trace = Path("run.seer");
  Child seer;
  seer.Start({kSeer, "record", "--sync=ebpf", "-o", trace, "-p", std::to_string(pid)}, Path("seer.err"));
  // Attached: the tracepoint programs (fork, exit, exec) go in last, a few
  // milliseconds before the recording starts.
  bool attached = false;
  for (int i = 0; i < 300 && !attached; ++i) {
    attached = BpfLinks(seer.pid, "raw_tracepoint") >= 3;
    if (!attached) usleep(50000);
  }
  ASSERT_TRUE(attached) << test::ReadWholeFile(Path("seer.err"));
  usleep(300000);
  target_.Send("fork\n");
  const std::string child_line = target_.ReadLine();
  const pid_t child = PidAfter(child_line, "child ");
  ASSERT_GT(child, 0) << child_line;
  EXPECT_EQ(target_.ReadLine(), "forked " + std::to_string(child) + " 0");
  target_.Send("fork-exec\n");
  const std::string exec_line = target_.ReadLine();
  const pid_t sleeper = PidAfter(exec_line, "exec'd ");
  ASSERT_GT(sleeper, 0) << exec_line;
  EXPECT_EQ(exec_line, "exec'd " + std::to_string(sleeper) + " 0");
  ASSERT_EQ(kill(seer.pid, SIGTERM), 0);
  EXPECT_EQ(seer.Wait(std::chrono::seconds(30)), 0) << test::ReadWholeFile(Path("seer.err"));
  const std::string err = test::ReadWholeFile(Path("seer.err"));
  const std::string c = std::to_string(child), p = std::to_string(pid), s = std::to_string(sleeper);
  EXPECT_NE(err.find("seer record: process " + c + " (forked by " + p + "): "), std::string::npos) << err;
  EXPECT_NE(err.find("seer record: process " + s + " (exec'd, child of " + p + "): "), std::string::npos) << err;
  EXPECT_EQ(err.find("not recorded"), std::string::npos) << err;

  // The child: its thread and the two it made, each counting 1000 times under the lock.
  const nlohmann::json info = Info(Path("run." + c + ".seer"));
  ASSERT_TRUE(info.is_object());
  EXPECT_EQ(info.value("threads", 0), 3) << info.dump();
  EXPECT_TRUE(info.value("complete", false)) << info.dump();
  EXPECT_EQ(info["meta"].value("record.process", ""), "forked by process " + p);
  EXPECT_EQ(info["meta"].value("record.sync", ""), "ebpf");
  EXPECT_GE(info["by_kind"].value("acquire", 0), 2000) << info.dump();
  EXPECT_EQ(info["by_kind"].value("acquire", 0), info["by_kind"].value("release", -1)) << info.dump();
  // sleep(1): the second program of its pid, recorded from its first instruction.
  const nlohmann::json sleep_info = Info(Path("run." + s + ".2.seer"));
  ASSERT_TRUE(sleep_info.is_object());
  EXPECT_NE(sleep_info.value("command_line", "").find("sleep"), std::string::npos) << sleep_info.dump();
  EXPECT_EQ(sleep_info["meta"].value("record.process", ""), "exec'd; parent process " + p);
  const nlohmann::json main_info = Info(trace);
  ASSERT_TRUE(main_info.is_object());
  EXPECT_NE(main_info["meta"].value("record.processes", "").find("run." + c + ".seer"), std::string::npos)
      << main_info.dump();
  StopFamily();
}

// A child still running when seer stops is detached as its parent is: its
// calls are put back, its trace is closed, and it runs on to its normal end.
TEST_F(InjectTest, ChildRunningAtTheDetachRunsOn) {
  pid_t pid = 0;
  Child seer;
  ASSERT_NO_FATAL_FAILURE(RecordFamily(&seer, &pid));
  const std::string exe = kPrograms + "/inject_family";
  const std::string marker = Path("marker");
  target_.Send("fork-long " + marker + "\n");
  pid_t child = 0;
  bool running = false;
  for (int i = 0; i < 2; ++i) {
    const std::string line = target_.ReadLine();
    if (const pid_t started = PidAfter(line, "started "); started > 0) child = started;
    running = running || line.find(" running") != std::string::npos;
  }
  ASSERT_GT(child, 0);
  EXPECT_TRUE(running);
  const std::string c = std::to_string(child);
  // Recorded: its own detach thread, its calls through the runtime.
  ASSERT_TRUE(WaitThread(child, "seer-detach", true, std::chrono::seconds(5)));
  EXPECT_EQ(SlotTarget(child, exe, "pthread_mutex_lock"), "libseer_rt.so");
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  ASSERT_EQ(kill(seer.pid, SIGTERM), 0);
  EXPECT_EQ(seer.Wait(std::chrono::seconds(30)), 0) << test::ReadWholeFile(Path("seer.err"));
  const std::string err = test::ReadWholeFile(Path("seer.err"));
  EXPECT_NE(err.find("seer record: process " + c + " (forked by " + std::to_string(pid) + "): "), std::string::npos)
      << err;
  // Let go, not killed: its calls are libc's again and it still runs.
  EXPECT_TRUE(WaitThread(child, "seer-detach", false, std::chrono::seconds(5)));
  EXPECT_EQ(SlotTarget(child, exe, "pthread_mutex_lock"), "libc.so.6");
  EXPECT_EQ(kill(child, 0), 0);
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  { std::ofstream touch(marker); }
  const std::string done = target_.ReadLine();
  std::istringstream in(done);
  std::string word, who, ok;
  long total = -1, sum = -2;
  in >> word >> who >> ok >> total >> sum;
  EXPECT_EQ(word + " " + who + " " + ok, "child " + c + " ok") << done;
  EXPECT_EQ(total, sum) << done;
  EXPECT_GT(total, 0) << done;
  target_.Send("reap\n");
  EXPECT_EQ(target_.ReadLine(), "reaped " + c + " 0");

  LoadedTrace t;
  ASSERT_TRUE(LoadTrace(Path("run." + c + ".seer"), &t).ok());
  EXPECT_TRUE(t.info.complete);
  EXPECT_GT(t.Count(EventKind::kAcquire), 100u) << KindSummary(t);
  EXPECT_EQ(t.info.Meta("record.detach"), "");
  EXPECT_EQ(CheckOrder(t), "");
  StopFamily();
}

// seer killed while a child is recorded: the child notices as its parent does
// (the recorder's pid in its attach page), puts its calls back by itself and
// runs on, never waiting for the recorder.
TEST_F(InjectTest, ChildOutlivesAKilledRecorder) {
  pid_t pid = 0;
  Child seer;
  ASSERT_NO_FATAL_FAILURE(RecordFamily(&seer, &pid));
  const std::string marker = Path("marker");
  target_.Send("fork-long " + marker + "\n");
  pid_t child = 0;
  for (int i = 0; i < 2; ++i)
    if (const pid_t started = PidAfter(target_.ReadLine(), "started "); started > 0) child = started;
  ASSERT_GT(child, 0);
  ASSERT_TRUE(WaitThread(child, "seer-detach", true, std::chrono::seconds(5)));
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  kill(seer.pid, SIGKILL);
  EXPECT_EQ(seer.Wait(std::chrono::seconds(10)), 128 + SIGKILL);
  EXPECT_TRUE(WaitThread(child, "seer-detach", false, std::chrono::seconds(5)))
      << "the child's runtime did not notice that its recorder died";
  EXPECT_TRUE(WaitThread(pid, "seer-detach", false, std::chrono::seconds(5)));
  EXPECT_EQ(SlotTarget(child, kPrograms + "/inject_family", "pthread_mutex_lock"), "libc.so.6");
  { std::ofstream touch(marker); }
  const std::string done = target_.ReadLine();
  EXPECT_EQ(done.rfind("child " + std::to_string(child) + " ok ", 0), 0u) << done;
  target_.Send("reap\n");
  EXPECT_EQ(target_.ReadLine(), "reaped " + std::to_string(child) + " 0");
  StopFamily();
}

// A program a followed child execs does not carry the runtime: it is named as
// not recorded, never dropped silently.
TEST_F(InjectTest, ProgramAChildExecsIsNamed) {
  pid_t pid = 0;
  Child seer;
  ASSERT_NO_FATAL_FAILURE(RecordFamily(&seer, &pid));
  target_.Send("fork-exec\n");
  const std::string line = target_.ReadLine();
  const pid_t child = PidAfter(line, "exec'd ");
  ASSERT_GT(child, 0) << line;
  EXPECT_EQ(line, "exec'd " + std::to_string(child) + " 0");
  ASSERT_EQ(kill(seer.pid, SIGTERM), 0);
  EXPECT_EQ(seer.Wait(std::chrono::seconds(30)), 0) << test::ReadWholeFile(Path("seer.err"));
  const std::string err = test::ReadWholeFile(Path("seer.err"));
  EXPECT_NE(err.find("seer record: not recorded: process " + std::to_string(child) + " (/usr/bin/sleep): exec'd"),
            std::string::npos)
      << err;
  const nlohmann::json main_info = Info(Path("run.seer"));
  ASSERT_TRUE(main_info.is_object());
  EXPECT_NE(main_info["meta"].value("record.unrecorded_processes", "").find("/usr/bin/sleep"), std::string::npos)
      << main_info.dump();
  StopFamily();
}

TEST_F(InjectTest, StaticProgramFallsBackToUprobes) {
  const pid_t pid = StartTarget("inject_target_static");
  ASSERT_GT(pid, 0);
  std::string err;
  EXPECT_EQ(scratch_->Run(std::string(kSeer) + " record --sync=inject -o " + Path("i.seer") + " -p " +
                              std::to_string(pid) + " --duration 1",
                          &err),
            2)
      << err;
  EXPECT_NE(err.find("statically linked"), std::string::npos) << err;
  EXPECT_EQ(
      scratch_->Run(
          std::string(kSeer) + " record -o " + Path("u.seer") + " -p " + std::to_string(pid) + " --duration 2", &err),
      0)
      << err;
  EXPECT_NE(err.find("statically linked: it cannot load the runtime; recording it with uprobes"), std::string::npos)
      << err;
  EXPECT_NE(err.find("(ebpf, "), std::string::npos) << err;
  EXPECT_FALSE(HasThread(pid, "seer-detach"));
  EXPECT_EQ(StopTarget(), 0);
}

// --futex-tracepoints that the kernel refuses (a seccomp filter on bpf() here)
// stop the attach before anything is injected: the process runs on untouched.
TEST_F(InjectTest, RefusedFutexTracepointsLeaveTheProcessAlone) {
  const pid_t pid = StartTarget("inject_target");
  ASSERT_GT(pid, 0);
  std::string err;
  EXPECT_EQ(scratch_->Run(kPrograms + "/deny_bpf " + kSeer + " record --sync=inject --futex-tracepoints -o " +
                              Path("f.seer") + " -p " + std::to_string(pid) + " --duration 1",
                          &err),
            2)
      << err;
  EXPECT_NE(err.find("--futex-tracepoints: the futex tracepoints could not be loaded: the kernel refused"),
            std::string::npos)
      << err;
  EXPECT_FALSE(HasThread(pid, "seer-detach"));
  EXPECT_EQ(SlotTarget(pid, kPrograms + "/inject_target", "pthread_mutex_lock"), "libc.so.6");
  target_.Send("invert\n");
  EXPECT_EQ(target_.ReadLine(), "inverted");
  EXPECT_EQ(StopTarget(), 2);
}

TEST_F(InjectTest, MissingProcessIsRefused) {
  // The pid of a child that has ended and been waited for: nobody has it now.
  const pid_t gone = fork();
  if (gone == 0) _exit(0);
  ASSERT_GT(gone, 0);
  ASSERT_EQ(waitpid(gone, nullptr, 0), gone);
  for (const std::string sync : {"auto", "inject"}) {
    std::string err;
    EXPECT_EQ(scratch_->Run(std::string(kSeer) + " record --sync=" + sync + " -o " + Path("m.seer") + " -p " +
                                std::to_string(gone) + " --duration 1",
                            &err),
              2)
        << sync << ": " << err;
    EXPECT_NE(err.find("no such process: " + std::to_string(gone)), std::string::npos) << sync << ": " << err;
  }
  std::string err;
  EXPECT_EQ(scratch_->Run(std::string(kSeer) + " record --sync=inject -o " + Path("m.seer") + " -- /bin/true", &err), 2)
      << err;
  EXPECT_NE(err.find("--sync=inject records a running process"), std::string::npos) << err;
}

}  // namespace
}  // namespace seer::testing
