// `seer record -p PID` on a running program built with seer-cc
// (tests/programs/attach_racy.c): its accesses come through the runtime's attach
// point, the race is found at its source line, the program runs on at full speed
// after the recorder detaches (--duration, SIGINT; threads waiting for room in
// full rings included) and at most the bounded wait after it dies, a target
// that exits while recorded is recorded to its end, a second recorder is
// refused, a forked child gets its own attach point, and a
// program that closed it is recorded sync only, saying why. Real probes and real
// processes, through the real `seer` binary: root needed (skipped loudly without).
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "recorder/rings/attach_point.h"
#include "recorder/rings/shared_area.h"
#include "seer/ring_layout.h"
#include "seer/ring_record.h"
#include "tests/recorder/child_process.h"
#include "tests/recorder/trace_check.h"
#include "tests/support/program_suite.h"

namespace seer::testing {
namespace {

using nlohmann::json;
using Clock = std::chrono::steady_clock;

constexpr const char* kSeer = SEER_BINARY;
constexpr const char* kTarget = SEER_ATTACH_TARGET;
constexpr const char* kTargetSource = SEER_ATTACH_TARGET_SOURCE;

// The line marked RACE in the target's source.
int RaceLine() {
  std::ifstream in(kTargetSource);
  std::string line, rest;
  for (int n = 1; std::getline(in, line); ++n)
    if (test::FindDirective(line, "/* RACE", &rest)) return n;
  return -1;
}

// /proc/PID/fd/N of `pid`'s attach point memfd, or "" when it has none.
std::string AttachPointLink(pid_t pid) {
  const std::string dir = "/proc/" + std::to_string(pid) + "/fd";
  const std::string wanted = std::string("/memfd:") + rt::kAttachName + " (deleted)";
  for (int fd = 0; fd < 1024; ++fd) {
    const std::string link = dir + "/" + std::to_string(fd);
    char target[256];
    const ssize_t n = readlink(link.c_str(), target, sizeof(target) - 1);
    if (n > 0 && std::string(target, static_cast<size_t>(n)) == wanted) return link;
  }
  return "";
}

// The shared memory `pid` has mapped and touched (RssShmem), in kB; -1 if unknown.
long SharedMemoryKb(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/status");
  std::string key;
  long kb = -1;
  while (in >> key)
    if (key == "RssShmem:" && in >> kb) break;
  return kb;
}

// The inode of `pid`'s attach point memfd, or 0 when it has none.
ino_t AttachPointInode(pid_t pid) {
  struct stat st;
  const std::string link = AttachPointLink(pid);
  return !link.empty() && stat(link.c_str(), &st) == 0 ? st.st_ino : 0;
}

class AttachTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (geteuid() != 0)
      GTEST_SKIP() << "\n*** NOT RUN: seer record -p needs root (CAP_BPF + CAP_PERFMON) to attach uprobes; "
                      "run the recorder tests as root ***";
    scratch_ = std::make_unique<test::ScratchDir>(std::string("seer-attach-") +
                                                  ::testing::UnitTest::GetInstance()->current_test_info()->name());
  }

  std::string Path(const std::string& name) const { return scratch_->Path(name); }

  // Starts the target; its pid (0 if it did not start).
  pid_t StartTarget(const std::vector<std::string>& args = {}) {
    std::vector<std::string> argv = {kTarget};
    argv.insert(argv.end(), args.begin(), args.end());
    target_.Start(argv, Path("target.err"));
    const std::string pid = target_.ReadLine();
    EXPECT_FALSE(pid.empty()) << "the target printed no pid: " << test::ReadWholeFile(Path("target.err"));
    return pid.empty() ? 0 : static_cast<pid_t>(std::stol(pid));
  }

  // `seer record -p PID` in the foreground; its exit code, its stderr in *err.
  int RecordPid(pid_t pid, const std::string& trace, const std::string& duration, std::string* err) {
    return scratch_->Run(
        std::string(kSeer) + " record -q -o " + trace + " -p " + std::to_string(pid) + " --duration " + duration, err);
  }

  // "stop" to the target: the time until it exited, which it must do with 0.
  double StopTarget() {
    const auto sent = Clock::now();
    target_.Send("stop\n");
    const int rc = target_.Wait(std::chrono::seconds(20));
    const double seconds = std::chrono::duration<double>(Clock::now() - sent).count();
    EXPECT_EQ(rc, 0) << "the target did not exit cleanly after stop: " << test::ReadWholeFile(Path("target.err"));
    return seconds;
  }

  // Runs `command`, which writes JSON to `file` in the scratch directory, and parses it.
  json ReadJson(const std::string& command, const std::string& file) {
    std::string out;
    const int rc = scratch_->Run(command, &out);
    EXPECT_EQ(rc, 0) << command << ": " << out;
    json j = json::parse(test::ReadWholeFile(Path(file)), nullptr, false);
    EXPECT_FALSE(j.is_discarded()) << command << " wrote no JSON to " << file;
    return j;
  }
  json Info(const std::string& trace) {
    return ReadJson("(" + std::string(kSeer) + " info --json " + trace + " > info.json)", "info.json");
  }

  // `seer record -p PID -o trace` in the background, given `ms` to attach and record.
  // Starts `seer record -p PID` in the background; WaitForCommittedWrites tells
  // when it records.
  void StartRecorder(pid_t pid, const std::string& trace) {
    recorder_.Start({kSeer, "record", "-q", "-o", Path(trace), "-p", std::to_string(pid)}, Path("recorder.err"));
  }
  std::string RecorderErr() const { return test::ReadWholeFile(Path("recorder.err")); }

  // Polls the trace being written until its committed counters hold more than
  // `writes` writes (a fixed sleep is not enough on a loaded machine); false
  // after `seconds`.
  bool WaitForCommittedWrites(const std::string& trace, int writes, int seconds) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(seconds);
    const std::string command = "(" + std::string(kSeer) + " info --json " + trace + " > progress.json) 2>/dev/null";
    while (std::chrono::steady_clock::now() < deadline) {
      std::string out;
      if (scratch_->Run(command, &out) == 0) {
        const json j = json::parse(test::ReadWholeFile(Path("progress.json")), nullptr, false);
        if (!j.is_discarded() && j["by_kind"].value("write", 0) > writes) return true;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
    }
    return false;
  }

  std::unique_ptr<test::ScratchDir> scratch_;
  Child target_;
  Child recorder_;
};

TEST_F(AttachTest, RecordsAccessesOfARunningProgramAndFindsItsRace) {
  const pid_t pid = StartTarget();
  ASSERT_GT(pid, 0);
  std::string err;
  ASSERT_EQ(RecordPid(pid, "T.seer", "2", &err), 0) << err;
  EXPECT_EQ(err, "") << "seer record said something: a missing attach point or lost accesses?";
  // The workers stopped writing at their next lock call after the detach, and
  // the recorder gave their rings' pages back (several MiB without that).
  const long shmem_kb = SharedMemoryKb(pid);
  EXPECT_GE(shmem_kb, 0);
  EXPECT_LT(shmem_kb, 1024) << "the target keeps its rings' memory after the detach";
  std::cerr << "target's shared memory after the detach: " << shmem_kb << " kB\n";
  // After the detach the program runs on: its burst fills its rings several
  // times over, and a runtime waiting for the recorder would stall for 2 s.
  const double stop_s = StopTarget();
  EXPECT_LT(stop_s, 1.0) << "the target stalled after the recorder detached";
  RecordProperty("stop_to_exit_ms", std::to_string(static_cast<int>(stop_s * 1000)));
  std::cerr << "stop to exit after the detach: " << static_cast<int>(stop_s * 1000) << " ms\n";

  const json info = Info("T.seer");
  EXPECT_EQ(info["meta"].value("record.mode", ""), "attach");
  EXPECT_EQ(info["meta"].value("record.attach_point", ""), "claimed");
  // Workers blocked in the lock at the detach never got it in this trace: dropped, not forced.
  EXPECT_EQ(info["meta"].value("record.forced_order", ""), "0");
  EXPECT_EQ(info["lost_events"], 0) << info["lost"].dump();
  int writers = 0;
  for (const json& t : info["thread_list"]) {
    const json kinds = t.value("by_kind", json::object());
    if (kinds.value("read", 0) > 100 && kinds.value("write", 0) > 100) ++writers;
  }
  EXPECT_EQ(writers, 3) << "reads and writes of every worker: " << info["thread_list"].dump();
  EXPECT_GE(std::stoul(info["meta"].value("record.runtime_rings", "0")), 3u);

  LoadedTrace trace;
  Status st = LoadTrace(Path("T.seer"), &trace);
  ASSERT_TRUE(st.ok()) << st.ToString();
  // Locks held at attach show up as releases without acquires: dropped, so the
  // lock semantics hold in the joined trace.
  EXPECT_EQ(CheckOrder(trace), "") << KindSummary(trace);

  const json report =
      ReadJson(std::string(kSeer) + " analyze T.seer --format json --analysis hb,wcp -o report.json", "report.json");
  const std::string racy = "attach_racy.c:" + std::to_string(RaceLine());
  for (const char* engine : {"hb", "wcp"}) {
    std::set<std::pair<std::string, std::string>> pairs;
    for (const json& p : report["races"][engine]["pairs"])
      pairs.insert(
          {test::Basename(p["first"].value("file", "")) + ":" + std::to_string(p["first"].value("line", 0)),
           test::Basename(p["second"].value("file", "")) + ":" + std::to_string(p["second"].value("line", 0))});
    const std::set<std::pair<std::string, std::string>> expected = {{racy, racy}};
    EXPECT_EQ(pairs, expected) << engine << ": " << report["races"][engine].dump();
  }
}

// A target that exits while recorded: the recorder takes every ring to its end
// (each worker's final burst of writes included) and ends with it. The burst
// is 64k writes, not the default 4M: recording 12.6M writes with no loss is a
// speed test, which the ASan build on a loaded machine failed (its recorder
// fell behind, and the runtime dropped records after its bounded wait).
TEST_F(AttachTest, RecordsUntilTheTargetExits) {
  constexpr int kBurst = 1 << 16;
  const pid_t pid = StartTarget();
  ASSERT_GT(pid, 0);
  StartRecorder(pid, "E.seer");
  // Recording, not still attaching (a fixed sleep was not enough on a loaded machine).
  ASSERT_TRUE(WaitForCommittedWrites("E.seer", 0, 60)) << "no writes recorded within 60 s: " << RecorderErr();
  target_.Send("stop " + std::to_string(kBurst) + "\n");
  EXPECT_EQ(target_.Wait(std::chrono::seconds(60)), 0);
  EXPECT_EQ(recorder_.Wait(std::chrono::seconds(60)), 0) << RecorderErr();
  const json info = Info("E.seer");
  EXPECT_EQ(info["complete"], true);
  EXPECT_EQ(info["lost_events"], 0) << info["lost"].dump();
  // Not seer's child: its exit status is unknown, and not made up.
  EXPECT_FALSE(info["meta"].contains("record.exit_status")) << info["meta"].dump();
  EXPECT_GE(info["by_kind"].value("write", 0), 3 * kBurst) << info.dump();
}

TEST_F(AttachTest, InprocCannotAttach) {
  const pid_t pid = StartTarget();
  ASSERT_GT(pid, 0);
  std::string err;
  EXPECT_EQ(scratch_->Run(std::string(kSeer) + " record --sync=inproc -o I.seer -p " + std::to_string(pid), &err), 2);
  EXPECT_NE(err.find("--sync=inproc needs a command to run"), std::string::npos) << err;
  EXPECT_NE(AttachPointInode(pid), 0u) << "the target lost its attach point";
  EXPECT_LT(StopTarget(), 1.0);
}

// SIGKILL leaves no time to detach: the runtime's bounded wait applies. A thread
// whose ring fills waits once for at most wait_ns (2 s), then drops its records
// at once; once the recorder is gone from the process table the runtime detaches
// itself. (Its exit is slow: the kernel unregisters the uprobes one by one.)
TEST_F(AttachTest, KilledRecorderStallsTheTargetOnceForTheBoundedWaitAtMost) {
  const pid_t pid = StartTarget();
  ASSERT_GT(pid, 0);
  // The recorder says nothing until its end: wait until its trace holds
  // committed writes (the rings are laid out and the workers write to them).
  StartRecorder(pid, "K.seer");
  ASSERT_TRUE(WaitForCommittedWrites("K.seer", 100, 60)) << "no writes recorded within 60 s: " << RecorderErr();
  kill(recorder_.pid, SIGKILL);
  const double stop_s = StopTarget();
  EXPECT_LT(stop_s, 3.5) << "the target waited for its dead recorder well beyond the bounded wait (2 s)";
  RecordProperty("stop_to_exit_ms", std::to_string(static_cast<int>(stop_s * 1000)));
  std::cerr << "stop to exit with a killed recorder: " << static_cast<int>(stop_s * 1000) << " ms\n";
  EXPECT_EQ(recorder_.Wait(std::chrono::seconds(60)), 128 + SIGKILL);
  const json info = Info("K.seer");
  EXPECT_EQ(info["complete"], false);
  EXPECT_GT(info["by_kind"].value("write", 0), 100) << "the recorder was killed before recording: " << info.dump();
}

TEST_F(AttachTest, SecondRecorderIsRefusedAndAProcessIsRecordedOnce) {
  const pid_t pid = StartTarget();
  ASSERT_GT(pid, 0);
  StartRecorder(pid, "A.seer");
  ASSERT_TRUE(WaitForCommittedWrites("A.seer", 100, 60)) << "no writes recorded within 60 s: " << RecorderErr();
  std::string err;
  EXPECT_EQ(RecordPid(pid, "B.seer", "1", &err), 2) << err;
  EXPECT_NE(err.find("is being recorded by another seer (pid " + std::to_string(recorder_.pid) + ")"),
            std::string::npos)
      << err;
  // SIGINT ends the first recording as --duration does: a complete trace, a detached target.
  kill(recorder_.pid, SIGINT);
  EXPECT_EQ(recorder_.Wait(std::chrono::seconds(30)), 0) << RecorderErr();
  const json info = Info("A.seer");
  EXPECT_EQ(info["complete"], true);
  EXPECT_GT(info["by_kind"].value("write", 0), 100) << info.dump();
  // Detached: the order counters are not fresh any more, so no second recording.
  EXPECT_EQ(RecordPid(pid, "C.seer", "1", &err), 2) << err;
  EXPECT_NE(err.find("was recorded by seer once already"), std::string::npos) << err;
  EXPECT_LT(StopTarget(), 1.0);
}

// The recorder's side played by the test, with rings nobody drains: every
// worker starts at its next lock call, fills its tiny ring at once and waits
// for room (up to 30 s). The detach must free them at once.
TEST_F(AttachTest, DetachFreesThreadsWaitingForRoom) {
  const pid_t pid = StartTarget();
  ASSERT_GT(pid, 0);
  recorder::RuntimeAttachPoint point;
  Status st = point.Claim(pid);
  ASSERT_TRUE(st.ok()) << st.ToString();
  recorder::SharedArea area;
  st = point.LayOut({16, 64, 30'000'000'000ull}, &area);
  ASSERT_TRUE(st.ok()) << st.ToString();
  point.Request();
  rt::ShmHeader* h = area.header();
  const auto deadline = Clock::now() + std::chrono::seconds(10);
  auto full_rings = [h] {
    int n = 0;
    for (uint32_t r = 0; r < std::min(h->next_ring.load(), h->max_rings); ++r)
      n += rt::RingDescs(h)[r].head.load() + rt::kMaxLongWords > h->ring_words;
    return n;
  };
  while (full_rings() < 3 && Clock::now() < deadline) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  ASSERT_GE(full_rings(), 3) << "the workers did not start recording";
  std::this_thread::sleep_for(std::chrono::milliseconds(200));  // well inside their wait for room
  point.Detach();
  const double stop_s = StopTarget();
  EXPECT_LT(stop_s, 1.0) << "the workers went on waiting for room after the detach";
  std::cerr << "stop to exit with every worker waiting for room at the detach: " << static_cast<int>(stop_s * 1000)
            << " ms\n";
}

TEST_F(AttachTest, ClaimLeftByADeadRecorderIsTakenOver) {
  const pid_t pid = StartTarget();
  ASSERT_GT(pid, 0);
  // A recorder that claimed the page and died before asking the runtime to start:
  // a pid that existed and is gone.
  const pid_t dead = fork();
  if (dead == 0) _exit(0);
  ASSERT_EQ(waitpid(dead, nullptr, 0), dead);
  const std::string link = AttachPointLink(pid);
  ASSERT_FALSE(link.empty());
  const int fd = open(link.c_str(), O_RDWR | O_CLOEXEC);
  ASSERT_GE(fd, 0);
  void* p = mmap(nullptr, rt::kAttachAreaOffset, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  close(fd);
  ASSERT_NE(p, MAP_FAILED);
  auto* page = static_cast<rt::AttachPoint*>(p);
  page->recorder_pid.store(dead);
  page->state.store(rt::kAttachClaimed);
  munmap(p, rt::kAttachAreaOffset);
  std::string err;
  ASSERT_EQ(RecordPid(pid, "D.seer", "1", &err), 0) << err;
  EXPECT_EQ(err, "");
  EXPECT_LT(StopTarget(), 1.0);
  const json info = Info("D.seer");
  EXPECT_GT(info["by_kind"].value("write", 0), 100) << info.dump();
}

TEST_F(AttachTest, ClosedAttachPointRecordsSyncOnlyAndSaysWhy) {
  const pid_t pid = StartTarget({"close-fds"});
  ASSERT_GT(pid, 0);
  std::string err;
  ASSERT_EQ(RecordPid(pid, "S.seer", "1", &err), 0) << err;
  EXPECT_NE(err.find("has no seer-rt-attach descriptor open"), std::string::npos) << err;
  EXPECT_NE(err.find("recording synchronisation only"), std::string::npos) << err;
  EXPECT_LT(StopTarget(), 1.0);
  const json info = Info("S.seer");
  EXPECT_GT(info["by_kind"].value("acquire", 0), 100) << info.dump();
  EXPECT_EQ(info["by_kind"].value("write", 0), 0) << info.dump();
}

TEST_F(AttachTest, ForkedChildGetsAnAttachPointOfItsOwn) {
  const pid_t pid = StartTarget();
  ASSERT_GT(pid, 0);
  target_.Send("fork\n");
  const std::string child_text = target_.ReadLine();
  ASSERT_FALSE(child_text.empty());
  const pid_t child = static_cast<pid_t>(std::stol(child_text));
  // The child's atfork handler has run once it is back in user space; give it a moment.
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  const ino_t parent_inode = AttachPointInode(pid), child_inode = AttachPointInode(child);
  kill(child, SIGKILL);
  EXPECT_NE(parent_inode, 0u);
  EXPECT_NE(child_inode, 0u);
  EXPECT_NE(parent_inode, child_inode) << "the child shares its parent's attach point";
  EXPECT_LT(StopTarget(), 1.0);
}

}  // namespace
}  // namespace seer::testing
