// `seer record` picking its mode (--sync=auto) and the preloaded runtime
// (kPreload): an uninstrumented dynamic program is launched with libseer_rt.so
// in LD_PRELOAD and recorded without uprobes and without root; a static one
// stays with eBPF, and -p PID takes the injected runtime (inject_test.cc has
// the details) or, with --sync=ebpf, uprobes. The preload tests run as any user; as root, the
// unprivileged launch is run as nobody (setpriv), and the eBPF fallbacks are
// recorded for real.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "recorder/recorder.h"
#include "tests/recorder/trace_check.h"

namespace seer::testing {
namespace {

using nlohmann::json;

constexpr const char* kSeer = SEER_BINARY;
const std::string kPrograms = SEER_TEST_PROGRAMS;

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

// Runs argv with stdout and stderr to files, `env` added to the environment;
// returns its exit code (128+N for a signal).
int RunCommand(const std::vector<std::string>& argv, const std::string& out_path, const std::string& err_path,
               const std::map<std::string, std::string>& env = {}) {
  const pid_t pid = fork();
  if (pid == 0) {
    const int out = open(out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0666);
    const int err = open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0666);
    if (out >= 0) dup2(out, 1);
    if (err >= 0) dup2(err, 2);
    for (const auto& [k, v] : env) setenv(k.c_str(), v.c_str(), 1);
    std::vector<char*> args;
    for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    execvp(args[0], args.data());
    _exit(127);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

class PreloadTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/seer_preload_test_XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
    chmod(dir_.c_str(), 0777);  // the unprivileged run writes its trace here
  }
  void TearDown() override {
    if (!dir_.empty() && std::system(("rm -rf " + dir_).c_str()) != 0) ADD_FAILURE() << "cannot remove " << dir_;
  }
  std::string Path(const std::string& name) const { return dir_ + "/" + name; }

  // `seer record -o T.seer extra... -- program args...`, prefixed by `as` (a
  // command that runs seer as another user); returns seer's exit code.
  int Record(const std::string& program, const std::vector<std::string>& extra = {},
             const std::vector<std::string>& args = {}, const std::vector<std::string>& as = {},
             const std::map<std::string, std::string>& env = {}) {
    trace_ = Path("T.seer");
    std::vector<std::string> argv = as;
    for (const std::string& a : {std::string(kSeer), std::string("record"), std::string("-o"), trace_})
      argv.push_back(a);
    argv.insert(argv.end(), extra.begin(), extra.end());
    argv.push_back("--");
    argv.push_back(kPrograms + "/" + program);
    argv.insert(argv.end(), args.begin(), args.end());
    return RunCommand(argv, Path("stdout"), Path("stderr"), env);
  }
  std::string Out() const { return ReadFile(Path("stdout")); }
  std::string Err() const { return ReadFile(Path("stderr")); }

  // `seer info --json` of the trace (it decodes every chunk against the counters).
  json Info() {
    const int rc = RunCommand({kSeer, "info", "--json", trace_}, Path("info.json"), Path("info.err"));
    EXPECT_EQ(rc, 0) << ReadFile(Path("info.err"));
    json j = json::parse(ReadFile(Path("info.json")), nullptr, false);
    EXPECT_FALSE(j.is_discarded()) << ReadFile(Path("info.json"));
    return j;
  }

  // Events per kind of thread `tid`, from `seer info --json`.
  static std::map<std::string, uint64_t> Kinds(const json& info, int tid) {
    std::map<std::string, uint64_t> out;
    for (const json& t : info["thread_list"])
      if (t.value("tid", -1) == tid)
        for (const auto& [kind, n] : t["by_kind"].items()) out[kind] = n.get<uint64_t>();
    return out;
  }

  std::string dir_;
  std::string trace_;
};

TEST(PreloadWithTest, AppendsToTheUsersPreloadOnce) {
  EXPECT_EQ(recorder::PreloadWith(nullptr, "/l/libseer_rt.so"), "/l/libseer_rt.so");
  EXPECT_EQ(recorder::PreloadWith("", "/l/libseer_rt.so"), "/l/libseer_rt.so");
  EXPECT_EQ(recorder::PreloadWith("/u/a.so", "/l/libseer_rt.so"), "/u/a.so:/l/libseer_rt.so");
  EXPECT_EQ(recorder::PreloadWith("/u/a.so /l/libseer_rt.so", "/l/libseer_rt.so"), "/u/a.so /l/libseer_rt.so");
  EXPECT_EQ(recorder::PreloadWith("/l/libseer_rt.so.1", "/l/libseer_rt.so"), "/l/libseer_rt.so.1:/l/libseer_rt.so");
}

TEST(AutoModeTest, PicksByWhatTheProgramIs) {
  EXPECT_EQ(recorder::AutoRecordMode({kPrograms + "/lock_inversion"}, 0), recorder::RecordMode::kPreload);
  EXPECT_EQ(recorder::AutoRecordMode({kPrograms + "/lock_inversion_static"}, 0), recorder::RecordMode::kEbpf);
  EXPECT_EQ(recorder::AutoRecordMode({}, 1234), recorder::RecordMode::kEbpf);
  EXPECT_EQ(recorder::AutoRecordMode({"sh"}, 0), recorder::RecordMode::kPreload);  // looked up in PATH
}

// The default mode on an uninstrumented dynamic program: the preloaded runtime
// records the lock-order inversion, which the deadlock analysis predicts.
TEST_F(PreloadTest, DefaultModeFindsTheDeadlockOfAnUninstrumentedProgram) {
  ASSERT_EQ(Record("lock_inversion_concurrent"), 0) << Err();
  EXPECT_NE(Err().find("threads (preload) -> "), std::string::npos) << Err();
  json info = Info();
  EXPECT_EQ(info["sync_mode"], "preload");
  EXPECT_EQ(info["meta"]["record.uprobes"], "0");
  EXPECT_EQ(info["lost_events"], 0) << info["lost"].dump();
  ASSERT_EQ(info["threads"], 3u) << info.dump();
  EXPECT_EQ(Kinds(info, 0)["fork"], 2u);
  EXPECT_EQ(Kinds(info, 0)["join"], 2u);
  for (int t : {1, 2}) {
    EXPECT_EQ(Kinds(info, t)["acquire"], 2u) << "thread " << t;
    EXPECT_EQ(Kinds(info, t)["release"], 2u) << "thread " << t;
  }
  LoadedTrace trace;
  Status st = LoadTrace(trace_, &trace);
  ASSERT_TRUE(st.ok()) << st.ToString();
  EXPECT_EQ(CheckOrder(trace), "");

  const int rc =
      RunCommand({kSeer, "analyze", trace_, "--analysis", "deadlock", "--format", "json", "-o", Path("a.json")},
                 Path("a.out"), Path("a.err"));
  ASSERT_EQ(rc, 0) << ReadFile(Path("a.err"));
  json report = json::parse(ReadFile(Path("a.json")), nullptr, false);
  ASSERT_TRUE(!report.is_discarded() && report.contains("deadlocks")) << ReadFile(Path("a.json"));
  EXPECT_EQ(report["deadlocks"].size(), 1u) << report["deadlocks"].dump(2);
}

// Every wake before the wait it ended, in the merged order of `trace`.
void ExpectWaitsAfterWakes(const std::string& path) {
  LoadedTrace trace;
  Status st = LoadTrace(path, &trace);
  ASSERT_TRUE(st.ok()) << st.ToString();
  EXPECT_EQ(CheckOrder(trace), "");
  int64_t tokens = 0;
  for (const auto& e : trace.events) {
    if (e.kind == EventKind::kSignal) ++tokens;
    if (e.kind == EventKind::kWait) {
      EXPECT_GT(tokens--, 0) << "a wait before the wake that ended it, event " << e.index;
    }
  }
}

// Raw futex syscalls through libc's syscall(): the runtime's interposer
// records them, with or without privileges, each wait after the wake that
// ended it. Those issued by the instruction itself are not seen: the trace
// says so (seer info's "not seen:"), the summary does not (most programs make
// no such call: the line would be noise in every recording).
TEST_F(PreloadTest, RawFutexThroughSyscallRecordedWithoutPrivileges) {
  std::vector<std::vector<std::string>> users = {{}};
  if (geteuid() == 0)
    users.push_back({"setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "--inh-caps=-all"});
  for (const auto& as : users) {
    SCOPED_TRACE(as.empty() ? "as this user" : "as nobody");
    ASSERT_EQ(Record("futex_handoff", {}, {}, as), 0) << Err();
    json info = Info();
    EXPECT_EQ(info["sync_mode"], "preload");
    EXPECT_EQ(info["meta"]["record.uprobes"], "0");
    EXPECT_FALSE(info["meta"].contains("record.futex_events")) << "no tracepoints unless asked";
    EXPECT_EQ(Err().find("not seen"), std::string::npos) << Err();
    EXPECT_EQ(info["meta"]["record.not_seen"].get<std::string>().rfind(
                  "raw futex syscalls issued without libc's syscall()", 0),
              0u)
        << info.dump(1);
    // Three rounds: the main thread wakes, the worker's wait returns.
    EXPECT_EQ(Kinds(info, 0)["signal"], 3u);
    EXPECT_EQ(Kinds(info, 1)["wait"], 3u);
    EXPECT_EQ(info["by_kind"]["signal"], 3u);
    EXPECT_EQ(info["by_kind"]["wait"], 3u);
    ExpectWaitsAfterWakes(trace_);
  }
  // The same handoff by the syscall instruction: nothing.
  ASSERT_EQ(Record("futex_handoff_insn"), 0) << Err();
  json insn = Info();
  EXPECT_NE(insn["meta"]["record.not_seen"], "");
  EXPECT_EQ(insn["by_kind"]["signal"], 0u);
  EXPECT_EQ(insn["by_kind"]["wait"], 0u);
}

// futex_waitv (no glibc wrapper: through syscall()): the wait is on the word
// whose index the call returned, as the tracepoint records it (record_test.cc).
TEST_F(PreloadTest, FutexWaitvThroughSyscallReturnsTheWordThatWokeIt) {
  ASSERT_EQ(Record("futex_waitv"), 0) << "the program checks which word woke each wait; " << Err();
  json info = Info();
  EXPECT_EQ(Kinds(info, 1)["wait"], 3u) << info.dump(1);
  EXPECT_EQ(Kinds(info, 0)["signal"], 3u);
  LoadedTrace trace;
  Status st = LoadTrace(trace_, &trace);
  ASSERT_TRUE(st.ok()) << st.ToString();
  // Each wait is on the word the previous wake was on.
  uint64_t woken_word = 0;
  for (const auto& e : trace.events) {
    if (e.kind == EventKind::kSignal) woken_word = e.object;
    if (e.kind == EventKind::kWait) {
      EXPECT_EQ(e.object, woken_word) << "event " << e.index;
    }
  }
}

// --futex-tracepoints adds the calls the program issues by the instruction
// itself; those through libc's syscall() stay the runtime's (not twice). It
// needs the eBPF privileges, and says so without them.
TEST_F(PreloadTest, FutexTracepointsAddWhatTheInstructionIssues) {
  if (geteuid() != 0) GTEST_SKIP() << "NOT RUN: the futex tracepoints need root or CAP_BPF and CAP_PERFMON";
  ASSERT_EQ(Record("futex_handoff_insn", {"--futex-tracepoints"}), 0) << Err();
  EXPECT_EQ(Err().find("not seen:"), std::string::npos) << Err();
  json info = Info();
  EXPECT_EQ(info["meta"]["record.futex_events"], "6");
  EXPECT_EQ(info["meta"]["record.futex_late"], "0");
  EXPECT_EQ(info["meta"]["record.futex_unplaced"], "0");
  EXPECT_EQ(Kinds(info, 0)["signal"], 3u);
  EXPECT_EQ(Kinds(info, 1)["wait"], 3u);
  ExpectWaitsAfterWakes(trace_);

  ASSERT_EQ(Record("futex_handoff", {"--futex-tracepoints"}), 0) << Err();
  json both = Info();
  EXPECT_EQ(both["meta"]["record.futex_events"], "0") << "the tracepoints kept a call the runtime recorded";
  EXPECT_GE(std::stoull(both["meta"]["record.futex_libc_internal_dropped"].get<std::string>()), 6u);
  EXPECT_EQ(both["by_kind"]["signal"], 3u);
  EXPECT_EQ(both["by_kind"]["wait"], 3u);

  ASSERT_EQ(Record("futex_handoff", {"--futex-tracepoints"}, {},
                   {"setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "--inh-caps=-all"}),
            2)
      << Err();
  EXPECT_NE(Err().find("--futex-tracepoints needs root or CAP_BPF and CAP_PERFMON"), std::string::npos) << Err();
}

// Asked for and refused by the kernel although seer has the privileges (here
// a seccomp filter on bpf(), as under a container runtime's default profile),
// the futex tracepoints stop the recording before the program runs, and the
// error says what refused them; without the option the same launch records.
// The eBPF mode names the same cause.
TEST_F(PreloadTest, FutexTracepointsTheKernelRefusesStopTheLaunch) {
  if (geteuid() != 0) GTEST_SKIP() << "NOT RUN: the futex tracepoints need root or CAP_BPF and CAP_PERFMON";
  const std::string marker = Path("ran");
  auto record = [&](const std::string& sync, bool futex) {
    trace_ = Path("T.seer");
    std::vector<std::string> argv = {kPrograms + "/deny_bpf", kSeer, "record", "-o", trace_, "--sync=" + sync};
    if (futex) argv.push_back("--futex-tracepoints");
    for (const std::string& a : {std::string("--"), std::string("/bin/sh"), std::string("-c"), "touch " + marker})
      argv.push_back(a);
    return RunCommand(argv, Path("stdout"), Path("stderr"));
  };
  ASSERT_EQ(record("preload", true), 2) << Err();
  EXPECT_NE(Err().find("--futex-tracepoints: the futex tracepoints could not be loaded: the kernel refused the BPF "
                       "programs (Operation not permitted) although seer has root or CAP_BPF and CAP_PERFMON"),
            std::string::npos)
      << Err();
  EXPECT_NE(access(marker.c_str(), F_OK), 0) << "the program ran although the recording failed to start";

  ASSERT_EQ(record("preload", false), 0) << Err();
  EXPECT_EQ(access(marker.c_str(), F_OK), 0) << "without --futex-tracepoints the program should have run";
  unlink(marker.c_str());

  ASSERT_EQ(record("ebpf", false), 2) << Err();
  EXPECT_NE(Err().find("the kernel refused the BPF programs (Operation not permitted) although seer has root"),
            std::string::npos)
      << Err();
  EXPECT_NE(access(marker.c_str(), F_OK), 0) << "the program ran although the recording failed to start";
}

// The service's duty cycle (Recording::SetPaused) pauses the runtime, and with
// the futex tracepoints detaches them too (they slow every system call on the
// machine), putting them back at the resume: the handoffs made in the pause
// are not recorded, a thread started in the pause has its counter registered
// by the recorder (its own registration call went unseen), and a wait that
// began in the pause is recorded when it returns after it. Run through libc's
// syscall() (the runtime) and by the instruction (the tracepoints).
TEST_F(PreloadTest, RawFutexEdgesAcrossAPause) {
  for (const bool tracepoints : {false, true}) {
    SCOPED_TRACE(tracepoints ? "futex_pause_insn, the tracepoints" : "futex_pause, the runtime");
    if (tracepoints && geteuid() != 0)
      GTEST_SKIP() << "NOT RUN (the tracepoints half): they need root or CAP_BPF and CAP_PERFMON";
    std::remove(Path("ready1").c_str());
    std::remove(Path("ready2").c_str());
    std::remove(Path("paused").c_str());
    std::remove(Path("resumed").c_str());
    recorder::RecordOptions o;
    o.mode = recorder::RecordMode::kPreload;
    o.command = {kPrograms + (tracepoints ? "/futex_pause_insn" : "/futex_pause"), dir_};
    o.output = trace_ = Path("T.seer");
    o.inproc.runtime_library = SEER_RUNTIME_LIBRARY;
    o.inproc.futex_tracepoints = tracepoints;
    std::unique_ptr<recorder::Recording> recording;
    Status st = recorder::Recording::Start(o, &recording);
    ASSERT_TRUE(st.ok()) << st.ToString();
    bool running = true;
    // Polls until `done()` (or the target ended, or 30 s passed).
    auto poll_until = [&](const std::function<bool()>& done) {
      const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
      while (running && !done() && std::chrono::steady_clock::now() < deadline) {
        Status s = recording->Poll(&running);
        ASSERT_TRUE(s.ok()) << s.ToString();
      }
      ASSERT_TRUE(done()) << "timed out";
    };
    auto exists = [&](const char* name) { return [this, name] { return access(Path(name).c_str(), F_OK) == 0; }; };
    auto touch = [&](const char* name) { std::ofstream(Path(name)).put('\n'); };
    poll_until(exists("ready1"));
    ASSERT_TRUE(recording->SetPaused(true));
    poll_until([&] { return recording->PauseDrained(); });
    touch("paused");
    poll_until(exists("ready2"));
    ASSERT_TRUE(recording->SetPaused(false));
    touch("resumed");
    poll_until([&] { return !running; });
    recorder::RecordResult result;
    st = recording->Finish(&result);
    ASSERT_TRUE(st.ok()) << st.ToString();
    EXPECT_EQ(result.exit_code, 0);

    json info = Info();
    EXPECT_EQ(info["sync_mode"], "preload");
    // Three wakes and three waits before the pause, as many after it; none of
    // the pause's own (they would make 18).
    EXPECT_EQ(info["by_kind"]["signal"], 6u);
    EXPECT_EQ(info["by_kind"]["wait"], 6u);
    if (tracepoints) {
      EXPECT_EQ(info["meta"]["record.futex_events"], "12") << info["meta"].dump(1);
      EXPECT_EQ(info["meta"]["record.futex_unplaced"], "0");
      EXPECT_EQ(info["meta"]["record.futex_late"], "0");
    }
    EXPECT_EQ(info["threads"], 3u);
    // Which tid each worker got follows the merged order: A waited 3 times
    // before the pause, B 3 times after it, its first wait begun in the pause.
    std::vector<uint64_t> waits;
    for (int t = 0; t < 3; ++t) waits.push_back(Kinds(info, t)["wait"]);
    std::sort(waits.begin(), waits.end());
    EXPECT_EQ(waits, (std::vector<uint64_t>{0, 3, 3}));
    ExpectWaitsAfterWakes(trace_);
  }
}

// No uprobe trap in the target: the kernel maps its "[uprobes]" page into a
// process at the first uprobe hit, and the program reports whether it has one.
// As root the same program under --sync=ebpf shows the page (the check works).
TEST_F(PreloadTest, NoUprobeIsHitInTheTarget) {
  ASSERT_EQ(Record("preload_probe"), 0) << Err();
  EXPECT_NE(Out().find("uprobes_mapped=0"), std::string::npos) << Out();
  EXPECT_NE(Out().find("libseer_rt.so"), std::string::npos) << "the runtime was not in LD_PRELOAD: " << Out();
  EXPECT_EQ(Info()["meta"]["record.sync"], "preload");
  if (geteuid() != 0) GTEST_SKIP() << "NOT RUN (the --sync=ebpf half): needs root";
  ASSERT_EQ(Record("preload_probe", {"--sync=ebpf"}), 0) << Err();
  EXPECT_NE(Out().find("uprobes_mapped=1"), std::string::npos) << Out();
  json info = Info();
  EXPECT_EQ(info["sync_mode"], "ebpf");
  EXPECT_NE(info["meta"]["record.uprobes"], "0");
}

// The user's LD_PRELOAD stays, first; an exec'd child inherits both entries,
// finds the rings taken and records nothing (the trace is the parent's).
TEST_F(PreloadTest, UsersPreloadIsKeptAndExecdChildInheritsIt) {
  // A library every program maps anyway: preloading it changes nothing.
  const std::string user_lib = "libpthread.so.0";
  // Under AddressSanitizer (make test-sanitize) seer itself refuses to start with
  // a library preloaded ahead of the ASan runtime: that check is off for this run.
  std::string asan_options = "verify_asan_link_order=0";
  if (const char* o = std::getenv("ASAN_OPTIONS")) asan_options = std::string(o) + ":" + asan_options;
  ASSERT_EQ(Record("preload_probe", {}, {"exec"}, {}, {{"LD_PRELOAD", user_lib}, {"ASAN_OPTIONS", asan_options}}), 0)
      << Err();
  const std::string out = Out();
  EXPECT_NE(out.find("\nld_preload=" + user_lib + ":/"), std::string::npos) << out;
  EXPECT_NE(out.find("libseer_rt.so\n"), std::string::npos) << out;
  EXPECT_NE(out.find("child ld_preload=" + user_lib + ":/"), std::string::npos) << out;
  json info = Info();
  EXPECT_EQ(info["sync_mode"], "preload");
  ASSERT_EQ(info["threads"], 3u) << "the exec'd child recorded into the parent's trace: " << info.dump();
  // Thread ids follow the merged order, in which a worker's first event may come
  // before main's: the two workers are whichever threads took locks.
  std::vector<uint64_t> acquires;
  for (int t = 0; t < 3; ++t) acquires.push_back(Kinds(info, t)["acquire"]);
  std::sort(acquires.begin(), acquires.end());
  EXPECT_EQ(acquires, (std::vector<uint64_t>{0, 100, 100})) << info.dump();
}

// A static program cannot be preloaded into: auto falls back to eBPF (root),
// and an explicit --sync=preload is refused with a reason.
TEST_F(PreloadTest, StaticProgramFallsBackToEbpf) {
  EXPECT_EQ(Record("lock_inversion_static", {"--sync=preload"}), 2);
  EXPECT_NE(Err().find("is not a dynamically linked program"), std::string::npos) << Err();
  const int rc = Record("lock_inversion_static");
  if (geteuid() != 0) {
    EXPECT_EQ(rc, 2);
    EXPECT_NE(Err().find("needs root or CAP_BPF and CAP_PERFMON"), std::string::npos) << Err();
    return;
  }
  ASSERT_EQ(rc, 0) << Err();
  json info = Info();
  EXPECT_EQ(info["sync_mode"], "ebpf");
  EXPECT_NE(info["meta"]["record.uprobes"], "0");
  EXPECT_EQ(Kinds(info, 1)["acquire"], 2u);
}

// -p PID: uprobes with --sync=ebpf, the runtime injected under auto; preload needs a launch.
TEST_F(PreloadTest, AttachByPidInjectsOrUsesEbpf) {
  const pid_t target = fork();
  if (target == 0) {
    execl((kPrograms + "/forever").c_str(), "forever", (char*)nullptr);
    _exit(127);
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  trace_ = Path("T.seer");
  const std::string pid = std::to_string(target);
  EXPECT_EQ(RunCommand({kSeer, "record", "--sync=preload", "-o", trace_, "-p", pid}, Path("stdout"), Path("stderr")),
            2);
  EXPECT_NE(Err().find("--sync=preload needs a command to run"), std::string::npos) << Err();
  // Uprobes first: once injected, the process carries the runtime for good.
  const int ebpf_rc = RunCommand({kSeer, "record", "--sync=ebpf", "-o", trace_, "-p", pid, "--duration", "1"},
                                 Path("stdout"), Path("stderr"));
  if (geteuid() != 0) {
    kill(target, SIGKILL);
    waitpid(target, nullptr, 0);
    EXPECT_EQ(ebpf_rc, 2);
    EXPECT_NE(Err().find("needs root or CAP_BPF and CAP_PERFMON"), std::string::npos) << Err();
    return;
  }
  ASSERT_EQ(ebpf_rc, 0) << Err();
  json info = Info();
  EXPECT_EQ(info["sync_mode"], "ebpf");
  EXPECT_EQ(info["meta"]["record.mode"], "attach");
  EXPECT_NE(info["meta"]["record.uprobes"], "0");
  // auto: the runtime is loaded into the process (docs/recording.md, "Attach by injection").
  const int rc =
      RunCommand({kSeer, "record", "-o", trace_, "-p", pid, "--duration", "1"}, Path("stdout"), Path("stderr"));
  kill(target, SIGKILL);
  waitpid(target, nullptr, 0);
  ASSERT_EQ(rc, 0) << Err();
  info = Info();
  EXPECT_EQ(info["sync_mode"], "inject");
  EXPECT_EQ(info["meta"]["record.uprobes"], "0");
  EXPECT_NE(info["meta"]["record.redirected_slots"], "0");
}

// No root needed to record a program one launches: as root, seer runs as
// nobody with no capabilities.
TEST_F(PreloadTest, UnprivilegedLaunchRecords) {
  std::vector<std::string> as;
  if (geteuid() == 0) as = {"setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "--inh-caps=-all"};
  ASSERT_EQ(Record("lock_inversion", {}, {}, as), 0) << Err();
  EXPECT_NE(Err().find("threads (preload) -> "), std::string::npos) << Err();
  EXPECT_EQ(Err().find("not seen"), std::string::npos) << Err();
  EXPECT_NE(Info()["meta"]["record.not_seen"], "");
  json info = Info();
  EXPECT_EQ(info["sync_mode"], "preload");
  EXPECT_EQ(info["lost_events"], 0);
  EXPECT_EQ(Kinds(info, 1)["acquire"], 2u);
  EXPECT_EQ(Kinds(info, 2)["acquire"], 2u);
  // eBPF is what needs the privileges: the same user is refused there.
  EXPECT_EQ(Record("lock_inversion", {"--sync=ebpf"}, {}, as), 2);
  if (!as.empty()) {
    EXPECT_NE(Err().find("needs root or CAP_BPF and CAP_PERFMON"), std::string::npos) << Err();
  }
}

// The addresses annotated_handoff prints: "flag=0x... lock=0x... buffer=0x...".
std::map<std::string, uint64_t> PrintedAddresses(const std::string& out) {
  std::map<std::string, uint64_t> found;
  for (const char* name : {"flag", "lock", "buffer"}) {
    const size_t at = out.find(std::string(name) + "=0x");
    if (at != std::string::npos) found[name] = std::stoull(out.substr(at + strlen(name) + 1), nullptr, 16);
  }
  return found;
}

// The dynamic annotations in an uninstrumented program (plain gcc), whose
// library defines them as weak no-ops: the preloaded runtime interposes them,
// both the program's calls and the library's own. The happens-before edge is a
// signal on the flag in the producer and a wait on it in main after it; the
// custom lock is a rwlock's acquires and releases in write mode; the buffer
// annotated new is an allocation of its size. The twin without annotations has
// none of these events (its relaxed flag orders nothing: an access recorded on
// either side would race).
TEST_F(PreloadTest, DynamicAnnotationsInterposeALibrarysWeakDefinitions) {
  ASSERT_EQ(Record("annotated_handoff", {"--sync=preload"}), 0) << Err();
  std::map<std::string, uint64_t> at = PrintedAddresses(Out());
  ASSERT_EQ(at.size(), 3u) << Out();
  LoadedTrace trace;
  Status st = LoadTrace(trace_, &trace);
  ASSERT_TRUE(st.ok()) << st.ToString();
  EXPECT_EQ(CheckOrder(trace), "");
  const Event* signal = nullptr;
  const Event* wait = nullptr;
  int lock_events = 0, exclusive = 0, allocs = 0;
  for (const Event& e : trace.events) {
    if (e.kind == EventKind::kSignal && e.object == at["flag"]) signal = &e;
    if (e.kind == EventKind::kWait && e.object == at["flag"]) wait = &e;
    if ((e.kind == EventKind::kAcquire || e.kind == EventKind::kRelease) && e.object == at["lock"]) {
      ++lock_events;
      exclusive += e.mode == static_cast<uint8_t>(LockMode::kExclusive);
    }
    if (e.kind == EventKind::kAlloc && e.object == at["buffer"] && e.aux == 4000) ++allocs;
  }
  ASSERT_NE(signal, nullptr) << KindSummary(trace);
  ASSERT_NE(wait, nullptr) << KindSummary(trace);
  EXPECT_LT(signal->index, wait->index);
  EXPECT_NE(signal->tid, wait->tid);
  EXPECT_EQ(lock_events, 4) << KindSummary(trace);
  EXPECT_EQ(exclusive, 4);
  EXPECT_EQ(allocs, 1) << KindSummary(trace);

  ASSERT_EQ(Record("annotated_handoff_plain", {"--sync=preload"}), 0) << Err();
  at = PrintedAddresses(Out());
  ASSERT_EQ(at.size(), 3u) << Out();
  LoadedTrace plain;
  st = LoadTrace(trace_, &plain);
  ASSERT_TRUE(st.ok()) << st.ToString();
  for (const Event& e : plain.events) {
    EXPECT_FALSE((e.kind == EventKind::kSignal || e.kind == EventKind::kWait) && e.object == at["flag"])
        << "event " << e.index;
    EXPECT_FALSE(e.kind == EventKind::kAcquire && e.object == at["lock"]) << "event " << e.index;
    EXPECT_FALSE(e.kind == EventKind::kAlloc && e.object == at["buffer"]) << "event " << e.index;
  }
}

// A blocking acquire that found its lock busy is recorded with its request
// (kLockRequest, before it blocks) and its wait (kLockWait, right before the
// acquire); one that found it free with neither.
TEST_F(PreloadTest, ContendedAcquiresRecordTheirWait) {
  ASSERT_EQ(Record("contended_locks"), 0) << Err();
  LoadedTrace trace;
  Status st = LoadTrace(trace_, &trace);
  ASSERT_TRUE(st.ok()) << st.ToString();
  EXPECT_EQ(CheckOrder(trace), "");
  const std::vector<uint32_t> workers = trace.ThreadsWith(EventKind::kLockWait, 3);
  ASSERT_EQ(workers.size(), 1u) << KindSummary(trace);
  const uint32_t worker = workers[0];
  EXPECT_EQ(trace.Count(EventKind::kLockWait), 3u) << KindSummary(trace);
  std::vector<const Event*> mine;
  for (const Event& e : trace.events)
    if (e.tid == worker) mine.push_back(&e);
  std::vector<uint64_t> acquires_after_wait;  // positions among the worker's acquires
  size_t acquires = 0;
  for (size_t i = 0; i < mine.size(); ++i) {
    if (mine[i]->kind == EventKind::kAcquire) ++acquires;
    if (mine[i]->kind != EventKind::kLockWait) continue;
    ASSERT_LT(i + 1, mine.size());
    ASSERT_GT(i, 1u);
    // Between the request and the wait: the lock's read of its object, which
    // precedes its acquire (sync_object_access.h).
    EXPECT_EQ(mine[i - 1]->kind, EventKind::kRead) << "the lock's use of its object";
    EXPECT_EQ(mine[i - 1]->object, mine[i]->object);
    const Event& request = *mine[i - 2];
    EXPECT_EQ(request.kind, EventKind::kLockRequest) << "a lock wait follows its request";
    EXPECT_EQ(request.object, mine[i]->object);
    EXPECT_EQ(request.mode, mine[i]->mode);
    const Event& next = *mine[i + 1];
    EXPECT_EQ(next.kind, EventKind::kAcquire) << "a lock wait is followed by its acquire";
    EXPECT_EQ(next.object, mine[i]->object);
    EXPECT_EQ(next.mode, mine[i]->mode);
    EXPECT_EQ(next.aux, static_cast<uint64_t>(AcquireHow::kBlocking));
    // main held the lock for 100 ms after the worker announced it would block
    EXPECT_GE(mine[i]->aux, 10'000'000u) << "waited " << mine[i]->aux << " ns";
    EXPECT_LT(mine[i]->aux, 60'000'000'000u);
    acquires_after_wait.push_back(acquires);
  }
  // mutex, rwlock (read mode), spin lock: the worker's first three acquires; its
  // fourth (the free mutex) has no wait.
  EXPECT_EQ(acquires_after_wait, (std::vector<uint64_t>{0, 1, 2}));
  EXPECT_EQ(acquires, 4u);
  ASSERT_EQ(trace.Count(EventKind::kLockWait, worker), 3u);
  EXPECT_EQ(trace.Count(EventKind::kLockRequest), 3u) << KindSummary(trace);

  // The trace keeps when its events happened: main held each lock for 100 ms,
  // so the samples span at least 300 ms, in ascending order.
  const std::vector<ClockSample>& clock = trace.info.clock;
  ASSERT_FALSE(clock.empty());
  for (size_t i = 1; i < clock.size(); ++i) {
    EXPECT_GT(clock[i].events, clock[i - 1].events);
    EXPECT_GE(clock[i].ns, clock[i - 1].ns);
  }
  EXPECT_LE(clock.back().events, trace.events.size());
  EXPECT_GE(clock.back().ns, 300'000'000u);
}

}  // namespace
}  // namespace seer::testing
