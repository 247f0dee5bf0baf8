// Where tracefs is, or is not, and what `seer record` makes of it
// (recorder/ebpf/tracefs.h): each test records in a private mount namespace
// (seer_tracing_mounts, tests/recorder/tracing_mounts.h) with tracefs
// unmounted, mounted, only under debugfs, or with mount(2) refused by a
// seccomp filter, and checks which system-call tracepoints the recording used
// (`seer info`'s record metadata), what is mounted when it is over, and that
// the futex events are all there. The machine's own mounts are neither used
// nor changed. Needs root.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tests/recorder/tracing_mounts.h"

namespace seer::testing {
namespace {

using nlohmann::json;

constexpr const char* kSeer = SEER_BINARY;
constexpr const char* kTracingMounts = SEER_TRACING_MOUNTS;
const std::string kPrograms = SEER_TEST_PROGRAMS;

constexpr const char* kMountedBySeer =
    "mounted by seer at /sys/kernel/tracing (left mounted): the per-syscall tracepoints are used";

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

// Runs argv with stdout and stderr in files and `env` added; returns its exit status.
int RunCommand(const std::vector<std::string>& argv, const std::string& out, const std::string& err,
               const std::map<std::string, std::string>& env = {}) {
  const pid_t pid = fork();
  if (pid == 0) {
    const int o = open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    const int e = open(err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (o < 0 || e < 0) _exit(126);
    dup2(o, 1);
    dup2(e, 2);
    unsetenv("SEER_RAW_SYSCALL_TRACEPOINTS");  // whatever the tests were started with
    for (const auto& [k, v] : env) setenv(k.c_str(), v.c_str(), 1);
    std::vector<char*> args;
    for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    execv(args[0], args.data());
    _exit(127);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

class TracefsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (geteuid() != 0)
      GTEST_SKIP() << "NOT RUN: the eBPF recorder and a private mount namespace need root; run the recorder "
                      "tests as root";
    char tmpl[] = "/tmp/seer_tracefs_test_XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
    host_mounts_ = TracingMounts();
  }
  void TearDown() override {
    if (!dir_.empty()) {
      EXPECT_EQ(TracingMounts(), host_mounts_) << "the test changed the machine's tracefs or debugfs mounts";
      if (std::system(("rm -rf " + dir_).c_str()) != 0) ADD_FAILURE() << "cannot remove " << dir_;
    }
  }
  std::string Path(const std::string& name) const { return dir_ + "/" + name; }

  // `seer record -o T.seer extra... -- program` in a private mount namespace
  // in `state` (`--deny-mount`: mount(2) refused); returns seer's exit code.
  int Record(const std::string& state, const std::vector<std::string>& extra, const std::string& program,
             bool deny_mount = false, const std::map<std::string, std::string>& env = {}) {
    trace_ = Path("T.seer");
    std::vector<std::string> argv = {kTracingMounts, state};
    if (deny_mount) argv.push_back("--deny-mount");
    for (const std::string& a : {Path("mounts"), std::string(kSeer), std::string("record"), std::string("-o"), trace_})
      argv.push_back(a);
    argv.insert(argv.end(), extra.begin(), extra.end());
    argv.push_back("--");
    argv.push_back(kPrograms + "/" + program);
    return RunCommand(argv, Path("stdout"), Path("stderr"), env);
  }
  std::string Err() const { return ReadFile(Path("stderr")); }
  // The tracefs and debugfs mounts of the namespace after the recording.
  std::string Mounts() const { return ReadFile(Path("mounts")); }

  // `seer info --json` of the trace.
  json Info() {
    EXPECT_EQ(RunCommand({kSeer, "info", "--json", trace_}, Path("info.json"), Path("info.err")), 0)
        << ReadFile(Path("info.err"));
    json j = json::parse(ReadFile(Path("info.json")), nullptr, false);
    EXPECT_FALSE(j.is_discarded()) << ReadFile(Path("info.json"));
    return j;
  }
  // `seer info`'s text.
  std::string InfoText() {
    EXPECT_EQ(RunCommand({kSeer, "info", trace_}, Path("info.txt"), Path("info.err")), 0) << ReadFile(Path("info.err"));
    return ReadFile(Path("info.txt"));
  }
  static std::string Meta(const json& info, const std::string& key) {
    return info["meta"].contains(key) ? info["meta"][key].get<std::string>() : std::string("(none)");
  }
  static uint64_t KindOf(const json& info, int tid, const std::string& kind) {
    for (const json& t : info["thread_list"])
      if (t.value("tid", -1) == tid && t["by_kind"].contains(kind)) return t["by_kind"][kind].get<uint64_t>();
    return 0;
  }
  // futex_handoff's three custom futex wakes and the three waits they end.
  static void ExpectTheHandoff(const json& info) {
    EXPECT_EQ(KindOf(info, 0, "signal"), 3u) << info.dump();
    EXPECT_EQ(KindOf(info, 1, "wait"), 3u) << info.dump();
  }

  std::string dir_;
  std::string trace_;
  std::vector<std::string> host_mounts_;
};

// The fresh machine of issue #30: seer mounts tracefs where the kernel
// expects it and attaches the per-syscall tracepoints.
TEST_F(TracefsTest, UnmountedTracefsIsMountedForThePerSyscallTracepoints) {
  ASSERT_EQ(Record("none", {"--sync=ebpf"}, "futex_handoff"), 0) << Err();
  EXPECT_EQ(Err().find("tracefs:"), std::string::npos) << Err();
  const json info = Info();
  EXPECT_EQ(Meta(info, "record.syscall_tracepoints"), "per-syscall");
  EXPECT_EQ(Meta(info, "record.tracefs"), kMountedBySeer);
  EXPECT_EQ(Mounts(), "tracefs /sys/kernel/tracing\n");
  ExpectTheHandoff(info);
  EXPECT_NE(InfoText().find(std::string("tracefs:      ") + kMountedBySeer), std::string::npos) << InfoText();
}

TEST_F(TracefsTest, MountedTracefsIsUsedAndNothingElseMounted) {
  ASSERT_EQ(Record("tracefs", {"--sync=ebpf"}, "futex_handoff"), 0) << Err();
  const json info = Info();
  EXPECT_EQ(Meta(info, "record.syscall_tracepoints"), "per-syscall");
  EXPECT_EQ(Meta(info, "record.tracefs"), "found at /sys/kernel/tracing: the per-syscall tracepoints are used");
  EXPECT_EQ(Mounts(), "tracefs /sys/kernel/tracing\n");
  ExpectTheHandoff(info);
}

// perf's other place: tracefs under debugfs (the kernel mounts it there on
// first use). seer reads the ids there itself, whatever libbpf would guess.
TEST_F(TracefsTest, TracefsUnderDebugfsIsUsedAndNothingElseMounted) {
  ASSERT_EQ(Record("debugfs", {"--sync=ebpf"}, "futex_handoff"), 0) << Err();
  const json info = Info();
  EXPECT_EQ(Meta(info, "record.syscall_tracepoints"), "per-syscall");
  EXPECT_EQ(Meta(info, "record.tracefs"), "found at /sys/kernel/debug/tracing: the per-syscall tracepoints are used");
  EXPECT_EQ(Mounts().find("tracefs /sys/kernel/tracing"), std::string::npos) << Mounts();
  ExpectTheHandoff(info);
}

// A container runtime's default seccomp profile refuses mount(2) to root: the
// raw tracepoints, with why and what it costs in the summary and the trace.
TEST_F(TracefsTest, RefusedMountLeavesTheRawTracepointsAndSaysWhy) {
  ASSERT_EQ(Record("none", {"--sync=ebpf"}, "futex_handoff", /*deny_mount=*/true), 0) << Err();
  const std::string why =
      "cannot mount tracefs at /sys/kernel/tracing (Operation not permitted, although seer has CAP_SYS_ADMIN: a "
      "seccomp filter";
  EXPECT_NE(Err().find("seer record: tracefs: " + why), std::string::npos) << Err();
  const json info = Info();
  EXPECT_EQ(Meta(info, "record.syscall_tracepoints"), "raw");
  const std::string note = Meta(info, "record.tracefs");
  EXPECT_EQ(note.rfind(why, 0), 0u) << note;
  EXPECT_NE(note.find("nor debugfs at /sys/kernel/debug (Operation not permitted"), std::string::npos) << note;
  EXPECT_NE(note.find("the raw sys_enter/sys_exit tracepoints are used instead, which add about 240 ns to every "
                      "system call"),
            std::string::npos)
      << note;
  EXPECT_EQ(Mounts(), "");
  ExpectTheHandoff(info);
  EXPECT_NE(InfoText().find("tracefs:      " + why), std::string::npos) << InfoText();
}

// The preloaded runtime's --futex-tracepoints load the same system-call programs.
TEST_F(TracefsTest, FutexTracepointsMountTracefsToo) {
  ASSERT_EQ(Record("none", {"--sync=preload", "--futex-tracepoints"}, "futex_handoff_insn"), 0) << Err();
  const json info = Info();
  EXPECT_EQ(Meta(info, "record.syscall_tracepoints"), "per-syscall");
  EXPECT_EQ(Meta(info, "record.tracefs"), kMountedBySeer);
  EXPECT_EQ(Meta(info, "record.futex_events"), "6");
  EXPECT_EQ(Mounts(), "tracefs /sys/kernel/tracing\n");
  ExpectTheHandoff(info);
}

TEST_F(TracefsTest, FutexTracepointsWithMountRefusedSayWhy) {
  ASSERT_EQ(Record("none", {"--sync=preload", "--futex-tracepoints"}, "futex_handoff_insn", /*deny_mount=*/true), 0)
      << Err();
  EXPECT_NE(Err().find("seer record: tracefs: cannot mount tracefs at /sys/kernel/tracing"), std::string::npos)
      << Err();
  const json info = Info();
  EXPECT_EQ(Meta(info, "record.syscall_tracepoints"), "raw");
  EXPECT_EQ(Meta(info, "record.futex_events"), "6");
  EXPECT_EQ(Mounts(), "");
}

// Modes that load no tracepoint mount nothing; the runtime needs no privilege.
TEST_F(TracefsTest, PreloadWithoutTracepointsMountsNothing) {
  ASSERT_EQ(Record("none", {"--sync=preload"}, "futex_handoff"), 0) << Err();
  const json info = Info();
  EXPECT_EQ(Meta(info, "record.tracefs"), "(none)");
  EXPECT_EQ(Mounts(), "");
}

// SEER_RAW_SYSCALL_TRACEPOINTS (the tests' way to the raw set) looks for no tracefs.
TEST_F(TracefsTest, RawTracepointsForcedMountNothing) {
  ASSERT_EQ(Record("none", {"--sync=ebpf"}, "futex_handoff", false, {{"SEER_RAW_SYSCALL_TRACEPOINTS", "1"}}), 0)
      << Err();
  const json info = Info();
  EXPECT_EQ(Meta(info, "record.syscall_tracepoints"), "raw");
  EXPECT_EQ(Meta(info, "record.tracefs").rfind("not looked for (SEER_RAW_SYSCALL_TRACEPOINTS is set)", 0), 0u);
  EXPECT_EQ(Mounts(), "");
  ExpectTheHandoff(info);
}

}  // namespace
}  // namespace seer::testing
