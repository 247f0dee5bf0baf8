// `seer record` follows a launched program's processes
// (recorder/runtime_modes/process_family.h, recorder/ebpf/ebpf_family.h): a
// forked child and a program a child execs are each recorded into a trace of
// their own, named in the summary and in the main trace; a process that
// cannot be followed is named as not recorded. Run on
// tests/programs/process_family.c as users record it: the plain build with
// the runtime preloaded, its seer-cc builds (gcc and clang), whose child
// traces must show the race the child has, and under --sync=ebpf (root) the
// plain build, a static one and the gcc seer-cc build (whose children's
// runtimes ask for rings of their own there too).
#include "recorder/runtime_modes/process_family.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>
#include <memory>
#include <regex>
#include <set>
#include <string>

#include <nlohmann/json.hpp>

#include "recorder/runtime_modes/inproc_recording.h"
#include "tests/support/cli_test_util.h"

namespace seer::test {
namespace {

using nlohmann::json;

TEST(ProcessTracePathTest, PutsThePidBeforeTheEnding) {
  EXPECT_EQ(recorder::ProcessTracePath("run.seer", 42, 1), "run.42.seer");
  EXPECT_EQ(recorder::ProcessTracePath("/t/run.seer", 42, 2), "/t/run.42.2.seer");
  EXPECT_EQ(recorder::ProcessTracePath("/t.seer/run", 42, 1), "/t.seer/run.42");
  EXPECT_EQ(recorder::ProcessTracePath("/t/.seer", 7, 1), "/t/.seer.7");
}

// The program and how `seer record` records it.
struct Build {
  std::string name;     // the test's suffix
  std::string program;  // path
  bool instrumented;    // its accesses are recorded (seer-cc): races can be found
  bool ebpf = false;    // recorded with --sync=ebpf (root): every program is followed, with or without the runtime
};

void PrintTo(const Build& b, std::ostream* os) { *os << b.name; }

// What the tests read of a recording: its summary's process lines, `seer info`, the races.
class FamilyTestBase : public TempDirTest {
 protected:
  // The "process PID (forked by|exec'd, child of PARENT): ... -> PATH[; NOTE]" lines of the summary.
  struct Line {
    int pid = 0;
    bool forked = false;
    std::string path;
  };
  std::vector<Line> ProcessLines() const {
    std::vector<Line> lines;
    static const std::regex line(
        R"(seer record: process (\d+) \((forked by|exec'd, child of) \d+\): .* -> ([^;\s]+)(; .*)?)");
    for (const std::string& l : result_.ErrLines()) {
      std::smatch m;
      if (std::regex_match(l, m, line)) lines.push_back({std::stoi(m[1]), m[2] == "forked by", m[3]});
    }
    return lines;
  }

  json Info(const std::string& trace) const {
    const RunResult r = Seer("info --json " + trace);
    EXPECT_EQ(r.code, 0) << r.err;
    return json::parse(r.out, nullptr, false);
  }

  // The functions of each side of the hb race pairs of `trace`, "first|second".
  std::set<std::string> Races(const std::string& trace) const {
    const RunResult r = Seer("analyze -a hb --format json " + trace);
    EXPECT_EQ(r.code, 0) << r.err;
    std::set<std::string> pairs;
    const json report = json::parse(r.out, nullptr, false);
    if (report.is_discarded()) {
      ADD_FAILURE() << r.out;
      return pairs;
    }
    for (const json& p : report["races"]["hb"]["pairs"])
      pairs.insert(p["first"].value("function", "?") + "|" + p["second"].value("function", "?"));
    return pairs;
  }

  RunResult result_;  // of `seer record`
};

class ProcessFamilyTest : public FamilyTestBase, public ::testing::WithParamInterface<Build> {
 protected:
  // `seer record -o T.seer -- PROGRAM what`: seer's exit code, stderr kept.
  int Record(const std::string& what) {
    result_ = Seer(std::string("record ") + (GetParam().ebpf ? "--sync=ebpf " : "") + "-o " + Path("T.seer") + " -- " +
                   GetParam().program + " " + what);
    return result_.code;
  }
  void SetUp() override {
    TempDirTest::SetUp();
    if (GetParam().ebpf && geteuid() != 0)
      GTEST_SKIP() << "*** SKIPPED: --sync=ebpf needs root (as in CI); this process is not root";
  }
};

// The race of process_family.c: the unlocked increments of the child's threads.
const std::set<std::string> kChildsRace = {"bump_racy|bump_racy"};

TEST_P(ProcessFamilyTest, ForkedChildIsRecordedIntoATraceOfItsOwn) {
  ASSERT_EQ(Record("fork"), 0) << result_.err;
  const std::vector<Line> lines = ProcessLines();
  ASSERT_EQ(lines.size(), 1u) << result_.err;
  EXPECT_TRUE(lines[0].forked);
  EXPECT_EQ(lines[0].path, Path("T." + std::to_string(lines[0].pid) + ".seer"));
  struct stat st;
  ASSERT_EQ(stat(lines[0].path.c_str(), &st), 0) << lines[0].path;
  EXPECT_EQ(st.st_mode & 0777, 0600u);

  // The child's trace: its thread and the two it made, no more.
  const json child = Info(lines[0].path);
  EXPECT_EQ(child.value("threads", 0), 3) << child.dump();
  EXPECT_EQ(child["meta"].value("record.pid", ""), std::to_string(lines[0].pid));
  EXPECT_NE(child["meta"].value("record.process", "").find("forked by process"), std::string::npos);
  // The main trace names it.
  const json main = Info(Path("T.seer"));
  EXPECT_NE(main["meta"].value("record.processes", "").find(lines[0].path), std::string::npos) << main.dump();
  EXPECT_EQ(main.value("threads", 0), 3);

  if (!GetParam().instrumented) return;
  // The race is the child's; the parent's increments hold a lock.
  EXPECT_EQ(Races(lines[0].path), kChildsRace);
  EXPECT_TRUE(Races(Path("T.seer")).empty());
}

TEST_P(ProcessFamilyTest, ProgramAChildExecsIsRecordedIntoATraceOfItsOwn) {
  ASSERT_EQ(Record("exec"), 0) << result_.err;
  const std::vector<Line> lines = ProcessLines();
  // The child as forked (until its exec), then the program it exec'd.
  ASSERT_EQ(lines.size(), 2u) << result_.err;
  EXPECT_TRUE(lines[0].forked);
  EXPECT_FALSE(lines[1].forked);
  EXPECT_EQ(lines[1].pid, lines[0].pid);
  EXPECT_EQ(lines[1].path, Path("T." + std::to_string(lines[0].pid) + ".2.seer"));
  const json worker = Info(lines[1].path);
  EXPECT_EQ(worker.value("threads", 0), 3) << worker.dump();
  EXPECT_NE(worker.value("command_line", "").find("worker"), std::string::npos) << worker.dump();
  if (!GetParam().instrumented) return;
  EXPECT_EQ(Races(lines[1].path), kChildsRace);
}

TEST_P(ProcessFamilyTest, ProcessThatCannotBeFollowedIsNamed) {
  // The child execs /bin/sleep with an empty environment: no runtime, no socket.
  ASSERT_EQ(Record("exec-bare"), 0) << result_.err;
  if (GetParam().ebpf) {
    // The BPF tracer needs neither: sleep is recorded too.
    const std::vector<Line> lines = ProcessLines();
    ASSERT_EQ(lines.size(), 2u) << result_.err;
    EXPECT_FALSE(lines[1].forked);
    EXPECT_NE(Info(lines[1].path).value("command_line", "").find("sleep 0.5"), std::string::npos);
    EXPECT_EQ(result_.err.find("not recorded"), std::string::npos) << result_.err;
    return;
  }
  EXPECT_NE(result_.err.find("seer record: not recorded: process "), std::string::npos) << result_.err;
  EXPECT_NE(result_.err.find("(/usr/bin/sleep)"), std::string::npos) << result_.err;
  const json main = Info(Path("T.seer"));
  EXPECT_NE(main["meta"].value("record.unrecorded_processes", "").find("/usr/bin/sleep"), std::string::npos)
      << main.dump();
}

// SIGTERM to seer is passed on to every recorded process, which all end; the
// traces are complete. A shell whose background child execs sleep(1),
// preloaded, and under --sync=ebpf.
class ProcessFamilyStopTest : public FamilyTestBase, public ::testing::WithParamInterface<std::string> {
 protected:
  void SetUp() override {
    FamilyTestBase::SetUp();
    if (GetParam() == "ebpf" && geteuid() != 0)
      GTEST_SKIP() << "*** SKIPPED: --sync=ebpf needs root (as in CI); this process is not root";
  }
  // Process `pid` runs the program of its second trace: preloaded, it has
  // mapped the rings seer answered with; under the eBPF tracer, which stops
  // it until its probes are attached, it sleeps (no longer stopped).
  bool Recorded(pid_t pid) const {
    if (GetParam() == "preload")
      return ReadFile("/proc/" + std::to_string(pid) + "/maps").find("memfd:seer-rt") != std::string::npos;
    const std::string stat = ReadFile("/proc/" + std::to_string(pid) + "/stat");
    const size_t close = stat.rfind(')');
    return stat.find("(sleep)") != std::string::npos && close + 2 < stat.size() && stat[close + 2] == 'S';
  }
};

TEST_P(ProcessFamilyStopTest, SigtermReachesEveryRecordedProcess) {
  const std::string err_path = Path("seer.err");
  const std::string sync = "--sync=" + GetParam();
  const pid_t seer = fork();
  ASSERT_GE(seer, 0);
  if (seer == 0) {
    const int err = open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (err >= 0) dup2(err, 2);
    const std::string out = Path("T.seer");
    execl(SEER_BINARY, SEER_BINARY, "record", sync.c_str(), "-o", out.c_str(), "--", "/bin/sh", "-c", "sleep 60 & wait",
          static_cast<char*>(nullptr));
    _exit(127);
  }
  // Until the program sleep(1) became is recorded: its trace is the pid's
  // second ("T.PID.2.seer"), and it runs recorded (Recorded). The trace alone
  // is not enough: seer creates it before it answers, and a SIGTERM passed
  // on meanwhile ends the process still asking (unrecorded).
  bool sleeping = false;
  for (int i = 0; i < 200 && !sleeping; ++i) {
    for (const auto& e : fs::directory_iterator(dir_)) {
      static const std::regex second(R"(T\.(\d+)\.2\.seer)");
      std::smatch m;
      const std::string name = e.path().filename().string();
      if (std::regex_match(name, m, second)) sleeping = Recorded(static_cast<pid_t>(std::stol(m[1].str())));
    }
    if (!sleeping) usleep(50000);
  }
  ASSERT_TRUE(sleeping) << ReadFile(err_path);
  ASSERT_EQ(kill(seer, SIGTERM), 0);
  int status = 0;
  pid_t waited = 0;
  for (int i = 0; i < 200 && waited == 0; ++i) {
    waited = waitpid(seer, &status, WNOHANG);
    if (waited == 0) usleep(50000);
  }
  if (waited == 0) {
    kill(seer, SIGKILL);
    waitpid(seer, &status, 0);
    FAIL() << "seer did not end within 10 s of SIGTERM: " << ReadFile(err_path);
  }
  // The shell, killed by the SIGTERM passed on to it: 128 + 15.
  ASSERT_TRUE(WIFEXITED(status)) << status;
  EXPECT_EQ(WEXITSTATUS(status), 128 + SIGTERM) << ReadFile(err_path);
  result_.err = ReadFile(err_path);
  const std::vector<Line> lines = ProcessLines();
  ASSERT_EQ(lines.size(), 2u) << result_.err;
  // sleep(1) is gone (reaped by whoever adopted it), not left running.
  bool gone = false;
  for (int i = 0; i < 100 && !gone; ++i) {
    gone = kill(lines[1].pid, 0) != 0 && errno == ESRCH;
    if (!gone) usleep(20000);
  }
  EXPECT_TRUE(gone) << "process " << lines[1].pid << " still runs";
  for (const Line& l : lines) EXPECT_TRUE(Info(l.path).value("complete", false)) << l.path;
}

// A process that asked for rings and could not be given them
// (recorder::StartChildRecording): no trace is left behind, one that ended
// meanwhile is named for that, not for the failed send ("Broken pipe"), and
// one still running runs on.
class ChildRecordingStartTest : public TempDirTest {
 protected:
  Status Start(pid_t pid) {
    recorder::RecordOptions options;
    options.mode = recorder::RecordMode::kPreload;
    options.output = Path("child.seer");
    recorder::ChildProcess process;
    process.pid = pid;
    process.parent = getpid();
    process.forked = true;
    process.give_area = [](int) { return Status::IOError("sending the area: Broken pipe"); };
    std::unique_ptr<recorder::Recording> recording;
    const Status st = recorder::StartChildRecording(options, process, &recording);
    EXPECT_EQ(recording, nullptr);
    EXPECT_FALSE(fs::exists(options.output)) << "a trace was left of a recording that never began";
    return st;
  }
};

TEST_F(ChildRecordingStartTest, ProcessThatEndedWhileAskingIsNamedSo) {
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) _exit(0);
  // Ended, not waited for yet: a zombie, as a recorded program's child is until its parent waits.
  siginfo_t info = {};
  ASSERT_EQ(waitid(P_PID, static_cast<id_t>(child), &info, WEXITED | WNOWAIT), 0);
  const Status zombie = Start(child);
  EXPECT_EQ(zombie.code(), Status::Code::kNotFound) << zombie.ToString();
  EXPECT_EQ(zombie.message(), recorder::kEndedWhileAsking);
  // Waited for: the pid is gone.
  ASSERT_EQ(waitpid(child, nullptr, 0), child);
  const Status gone = Start(child);
  EXPECT_EQ(gone.code(), Status::Code::kNotFound) << gone.ToString();
  EXPECT_EQ(gone.message(), recorder::kEndedWhileAsking);
}

TEST_F(ChildRecordingStartTest, RunningProcessGetsTheSendsError) {
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    pause();
    _exit(0);
  }
  const Status st = Start(child);
  EXPECT_EQ(st.code(), Status::Code::kIOError) << st.ToString();
  EXPECT_NE(st.message().find("Broken pipe"), std::string::npos) << st.ToString();
  // It goes on unrecorded: not killed with the recording that did not begin.
  EXPECT_EQ(waitpid(child, nullptr, WNOHANG), 0) << "the process was killed";
  kill(child, SIGKILL);
  waitpid(child, nullptr, 0);
}

INSTANTIATE_TEST_SUITE_P(
    Builds, ProcessFamilyTest,
    ::testing::Values(Build{"preloaded", SEER_PLAIN_PROGRAM, false},
                      Build{"gcc", std::string(SEER_FAMILY_PROGRAMS) + "/process_family", true},
                      Build{"clang", std::string(SEER_FAMILY_PROGRAMS) + "/process_family.clang", true},
                      Build{"ebpf", SEER_PLAIN_PROGRAM, false, true},
                      Build{"ebpf_gcc", std::string(SEER_FAMILY_PROGRAMS) + "/process_family", true, true},
                      Build{"ebpf_static", SEER_STATIC_PROGRAM, false, true}),
    [](const ::testing::TestParamInfo<Build>& info) { return info.param.name; });
INSTANTIATE_TEST_SUITE_P(Modes, ProcessFamilyStopTest, ::testing::Values("preload", "ebpf"),
                         [](const ::testing::TestParamInfo<std::string>& info) { return info.param; });

}  // namespace
}  // namespace seer::test
