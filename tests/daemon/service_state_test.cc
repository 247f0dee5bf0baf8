// What `seer daemon` keeps across restarts and how it stops: the state file's
// round trip (findings with first seen, last seen, count and their pages; the
// windows done) and its refusal of truncated, garbled or inconsistent files;
// the JSON the analysis process answers with; the analysis worker's stop
// (cancels, counts what is left) and the parent side of the analysis process
// (cancel, a dead child, a malformed answer) with stand-in programs.
#include "daemon/service_state.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "daemon/analysis_json.h"
#include "daemon/analysis_process.h"
#include "daemon/analysis_worker.h"
#include "daemon/findings_registry.h"
#include "tests/support/temp_dir.h"

namespace seer::daemon {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

class ServiceStateTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = test::MakeTempDir(std::string("seer-service-state-test-") +
                             ::testing::UnitTest::GetInstance()->current_test_info()->name());
    ASSERT_FALSE(dir_.empty()) << "cannot make a temporary directory";
  }
  void TearDown() override {
    if (!dir_.empty()) fs::remove_all(dir_);
  }
  std::string Path(const std::string& name) const { return (dir_ / name).string(); }
  std::string Read(const std::string& name) const {
    std::ifstream in(Path(name), std::ios::binary);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
  }
  void Write(const std::string& name, const std::string& text) const {
    std::ofstream(Path(name), std::ios::binary | std::ios::trunc) << text;
  }
  // A stand-in for the seer binary: a shell script (the analysis subcommand
  // is its ignored first argument).
  std::string Script(const std::string& name, const std::string& body) const {
    Write(name, "#!/bin/sh\n" + body + "\n");
    fs::permissions(Path(name), fs::perms::owner_all);
    return Path(name);
  }
  fs::path dir_;
};

// A local analysis process: `program` run as the daemon runs seer.
AnalysisCommand Local(const std::string& program) { return MakeAnalysisCommand(program, SlurmConfig(), ""); }

FindingRecord Record(const std::string& site, const std::string& html = "") {
  FindingRecord r;
  r.signature = "deadlock|deadlock|" + site;
  r.kind = "deadlock";
  r.engine = "deadlock";
  r.summary = "deadlock: first held at " + site;
  r.report = "the report of " + site + "\n";
  r.html = html;
  return r;
}

// A registry as a service has it after three windows.
void ThreeWindows(FindingsRegistry* registry) {
  registry->Merge({Record("main.c:10", "<html>page of main.c:10</html>")}, 100);
  registry->Merge({Record("main.c:10"), Record("lib.c:7")}, 110);
  registry->Merge({Record("main.c:10")}, 120);
}

TEST_F(ServiceStateTest, FindingsAndWindowsDoneSurviveASaveAndALoad) {
  FindingsRegistry before;
  ThreeWindows(&before);
  ServiceState state;
  state.findings = before.All();
  state.windows_done = {"window-100000-t0.seer", "window-110000-t0.seer"};
  Status st = SaveServiceState(dir_.string(), state);
  ASSERT_TRUE(st.ok()) << st.ToString();

  // Private: the findings name the program's code.
  struct stat sb;
  ASSERT_EQ(stat(Path(kStateFileName).c_str(), &sb), 0);
  EXPECT_EQ(sb.st_mode & 0777, 0600u);
  const std::string page =
      std::string(kReportsDirName) + "/" + FindingsRegistry::IdOf(Record("main.c:10").signature) + ".html";
  ASSERT_EQ(stat(Path(page).c_str(), &sb), 0);
  EXPECT_EQ(sb.st_mode & 0777, 0600u);
  EXPECT_EQ(Read(page), "<html>page of main.c:10</html>");
  EXPECT_FALSE(fs::exists(Path(std::string(kStateFileName) + ".tmp")));

  ServiceState loaded;
  st = LoadServiceState(dir_.string(), &loaded);
  ASSERT_TRUE(st.ok()) << st.ToString();
  EXPECT_EQ(loaded.windows_done, state.windows_done);
  FindingsRegistry after;
  after.Restore(loaded.findings);
  const std::vector<MergedFinding> a = before.All(), b = after.All();
  ASSERT_EQ(b.size(), 2u);
  for (size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(b[i].id, a[i].id);
    EXPECT_EQ(b[i].first_seen, a[i].first_seen);
    EXPECT_EQ(b[i].last_seen, a[i].last_seen);
    EXPECT_EQ(b[i].windows, a[i].windows);
    EXPECT_EQ(b[i].html, a[i].html);
    EXPECT_EQ(b[i].latest.signature, a[i].latest.signature);
    EXPECT_EQ(b[i].latest.summary, a[i].latest.summary);
    EXPECT_EQ(b[i].latest.report, a[i].latest.report);
  }
  EXPECT_EQ(b[0].windows, 3u);
  EXPECT_EQ(b[0].first_seen, 100);
  EXPECT_EQ(b[0].last_seen, 120);
  EXPECT_TRUE(b[1].html.empty());  // it never had a page
  EXPECT_EQ(after.Json(), before.Json());

  // The recurring bug goes on counting from where it was: first seen kept.
  after.Merge({Record("main.c:10")}, 130);
  MergedFinding f;
  ASSERT_TRUE(after.Find(a[0].id, &f));
  EXPECT_EQ(f.windows, 4u);
  EXPECT_EQ(f.first_seen, 100);
  EXPECT_EQ(f.last_seen, 130);
  EXPECT_EQ(f.html, "<html>page of main.c:10</html>");
}

TEST_F(ServiceStateTest, NoStateFileIsNotFound) {
  ServiceState loaded;
  Status st = LoadServiceState(dir_.string(), &loaded);
  EXPECT_EQ(st.code(), Status::Code::kNotFound) << st.ToString();
}

TEST_F(ServiceStateTest, ADamagedStateFileIsCorruptionAndLoadsNothing) {
  FindingsRegistry registry;
  ThreeWindows(&registry);
  ServiceState state;
  state.findings = registry.All();
  state.windows_done = {"window-100000-t0.seer"};
  ASSERT_TRUE(SaveServiceState(dir_.string(), state).ok());
  const std::string whole = Read(kStateFileName);
  const std::string id = state.findings[0].id;
  struct Damage {
    const char* what;
    std::string text;
  };
  std::string garbled = whole;
  for (size_t i = garbled.size() / 3; i < garbled.size() / 3 + 16; ++i) garbled[i] = static_cast<char>(0xff - i);
  std::string wrong_id = whole;
  wrong_id.replace(wrong_id.find(id), id.size(), "0123456789abcdef");
  std::string wrong_type = whole;
  wrong_type.replace(wrong_type.find("\"windows\": 3"), 12, "\"windows\": \"3\"");
  const std::vector<Damage> damages = {
      {"truncated", whole.substr(0, whole.size() / 2)},
      {"empty", ""},
      {"garbled", garbled},
      {"not an object", "[1, 2, 3]"},
      {"another version", R"({"version": 99, "windows_done": [], "findings": []})"},
      {"a finding's id not that of its signature", wrong_id},
      {"a count of the wrong type", wrong_type},
      {"a finding missing its record", R"({"version": 1, "windows_done": [], "findings": [{"id": "x"}]})"},
      {"a window name that is not a string", R"({"version": 1, "windows_done": [7], "findings": []})"},
  };
  for (const Damage& d : damages) {
    SCOPED_TRACE(d.what);
    Write(kStateFileName, d.text);
    ServiceState loaded;
    loaded.windows_done = {"left over"};
    Status st = LoadServiceState(dir_.string(), &loaded);
    EXPECT_EQ(st.code(), Status::Code::kCorruption) << st.ToString();
    EXPECT_NE(st.message().find(kStateFileName), std::string::npos) << st.message();
    EXPECT_TRUE(loaded.findings.empty());
    EXPECT_TRUE(loaded.windows_done.empty());
  }
  // The check above is not vacuous: the undamaged text loads.
  Write(kStateFileName, whole);
  ServiceState loaded;
  EXPECT_TRUE(LoadServiceState(dir_.string(), &loaded).ok());
  EXPECT_EQ(loaded.findings.size(), 2u);
}

TEST_F(ServiceStateTest, AWindowsAnalysisSurvivesItsJsonForm) {
  WindowAnalysis a;
  a.events = 22;
  a.by_kind[3] = 7;
  a.lost = 2;
  a.findings = {Record("main.c:10", "<html>x</html>"), Record("odd \xff byte")};
  ContentionRecord c;
  c.lock = "hot";
  c.site = "hammer daemon_target.c:24";
  c.stats.acquisitions = 10;
  c.stats.contended = 4;
  c.stats.wait_seconds = 0.25;
  c.stats.buckets[3] = 4;
  c.stats.held = 9;
  c.stats.hold_seconds = 0.5;
  c.stats.hold_buckets[8] = 1;
  a.contention = {c};
  WindowAnalysis b;
  const nlohmann::json j = nlohmann::json::parse(DumpJson(AnalysisToJson(a)));
  Status st = AnalysisFromJson(j, &b);
  ASSERT_TRUE(st.ok()) << st.ToString();
  EXPECT_EQ(b.events, 22u);
  EXPECT_EQ(b.by_kind, a.by_kind);
  EXPECT_EQ(b.lost, 2u);
  ASSERT_EQ(b.findings.size(), 2u);
  EXPECT_EQ(b.findings[0].html, "<html>x</html>");
  EXPECT_EQ(b.findings[0].report, a.findings[0].report);
  EXPECT_EQ(b.findings[1].signature, "deadlock|deadlock|odd \xef\xbf\xbd byte");  // not UTF-8: replaced
  ASSERT_EQ(b.contention.size(), 1u);
  EXPECT_EQ(b.contention[0].lock, "hot");
  EXPECT_EQ(b.contention[0].stats.buckets, c.stats.buckets);
  EXPECT_EQ(b.contention[0].stats.hold_buckets, c.stats.hold_buckets);
  EXPECT_EQ(b.contention[0].stats.wait_seconds, 0.25);
  EXPECT_EQ(b.contention[0].stats.held, 9u);

  nlohmann::json broken = j;
  broken["contention"][0]["buckets"] = {1, 2};
  EXPECT_EQ(AnalysisFromJson(broken, &b).code(), Status::Code::kCorruption);
  broken = j;
  broken["findings"][1].erase("report");
  st = AnalysisFromJson(broken, &b);
  EXPECT_EQ(st.code(), Status::Code::kCorruption);
  EXPECT_NE(st.message().find("finding 1"), std::string::npos) << st.message();
}

TEST_F(ServiceStateTest, StopCancelsTheAnalysisAndCountsWhatIsLeft) {
  std::atomic<int> started{0};
  std::vector<std::string> done;
  std::vector<AnalysisWorker::Outcome> outcomes;
  AnalysisWorker worker(
      [&](const WindowFile&, const std::vector<const predictor::EngineSpec*>&, const std::atomic<bool>& cancel,
          WindowAnalysis*, double*, bool* cancelled) {
        started++;
        // An analysis that would take a minute, unless cancelled.
        const auto end = Clock::now() + std::chrono::seconds(60);
        while (!cancel.load() && Clock::now() < end) std::this_thread::sleep_for(std::chrono::milliseconds(5));
        *cancelled = cancel.load();
        return *cancelled ? Status::Internal("cancelled") : Status::Ok();
      },
      [&](const WindowFile& w, AnalysisWorker::Outcome outcome, const Status&, const WindowAnalysis&, double) {
        done.push_back(w.path);
        outcomes.push_back(outcome);
      });
  WindowFile gone;
  gone.path = Path("window-1-t0.seer");  // never written: removed before its analysis
  worker.Enqueue(gone);
  for (int i = 2; i < 5; ++i) {
    WindowFile w;
    w.path = Path("window-" + std::to_string(i) + "-t0.seer");
    Write(fs::path(w.path).filename().string(), "x");
    worker.Enqueue(w);
  }
  const auto deadline = Clock::now() + std::chrono::seconds(10);
  while (started.load() == 0 && Clock::now() < deadline) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  ASSERT_EQ(started.load(), 1);
  const auto stop = Clock::now();
  worker.Stop();
  EXPECT_LT(Clock::now() - stop, std::chrono::seconds(5));
  EXPECT_EQ(started.load(), 1);  // nothing after the cancelled one
  ASSERT_EQ(done.size(), 1u);    // the removed window only
  EXPECT_EQ(done[0], gone.path);
  EXPECT_EQ(outcomes[0], AnalysisWorker::Outcome::kRemoved);
  EXPECT_EQ(worker.queued(), 3u);  // the cancelled one and the two behind it
  WindowFile late;
  late.path = Path("window-9-t0.seer");
  worker.Enqueue(late);  // closed by a recording that ends after the stop
  EXPECT_EQ(worker.queued(), 4u);
}

// Runs `command` on a request and cancels it after 300 ms.
struct CancelledRun {
  Status st;
  bool cancelled = false;
  double cpu = -1;
  Clock::duration took;
};
CancelledRun AnalyzeAndCancel(const AnalysisCommand& command, const std::string& window) {
  std::atomic<bool> cancel{false};
  std::thread canceller([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    cancel.store(true);
  });
  CancelledRun run;
  WindowAnalysis out;
  AnalysisRequest request;
  request.window_path = window;
  const auto start = Clock::now();
  run.st = AnalyzeInChildProcess(command, request, cancel, &out, &run.cpu, &run.cancelled);
  run.took = Clock::now() - start;
  canceller.join();
  return run;
}

TEST_F(ServiceStateTest, AnAnalysisProcessIsKilledWhenCancelled) {
  const CancelledRun run = AnalyzeAndCancel(Local(Script("slow", "exec sleep 60")), Path("w.seer"));
  EXPECT_FALSE(run.st.ok());
  EXPECT_TRUE(run.cancelled);
  EXPECT_LT(run.took, std::chrono::seconds(5));
  EXPECT_GE(run.cpu, 0);
}

// An exchange with an analysis process that nothing cancels.
struct Exchange {
  std::atomic<bool> cancel{false};
  WindowAnalysis out;
  double cpu = 0;
  bool cancelled = true;
  Status Run(const AnalysisCommand& command, const AnalysisRequest& request) {
    return AnalyzeInChildProcess(command, request, cancel, &out, &cpu, &cancelled);
  }
};

TEST_F(ServiceStateTest, AnAnalysisProcessThatDiesOrBabblesIsAnError) {
  Exchange x;
  AnalysisRequest request;
  request.window_path = Path("w.seer");
  struct Case {
    const char* what;
    std::string body;
    Status::Code code;
    const char* says;
  };
  const std::vector<Case> cases = {
      {"killed", "kill -9 $$", Status::Code::kInternal, "killed"},
      {"exit 3", "exit 3", Status::Code::kInternal, "status 3"},
      {"not JSON", "cat > /dev/null; echo 'segfault at 0'", Status::Code::kCorruption, "not JSON"},
      {"an analysis error", R"(cat > /dev/null; echo '{"error": {"code": 3, "message": "chunk 2 is damaged"}}')",
       Status::Code::kCorruption, "chunk 2 is damaged"},
      {"no analysis", R"(cat > /dev/null; echo '{"analysis": {"events": 1}}')", Status::Code::kCorruption, "lost"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.what);
    Status st = x.Run(Local(Script("p", c.body)), request);
    EXPECT_EQ(st.code(), c.code) << st.ToString();
    EXPECT_NE(st.message().find(c.says), std::string::npos) << st.ToString();
    EXPECT_FALSE(x.cancelled);
  }
  // The request a real child reads: the window, engines, pages the service has.
  request.engines = {"deadlock"};
  request.have_html = {"sig"};
  Status st = x.Run(Local(Script("p", "cat > " + Path("request.json") + "; exit 4")), request);
  EXPECT_FALSE(st.ok());
  const nlohmann::json req = nlohmann::json::parse(Read("request.json"));
  EXPECT_EQ(req["window"], request.window_path);
  EXPECT_EQ(req["engines"], nlohmann::json({"deadlock"}));
  EXPECT_EQ(req["have_html"], nlohmann::json({"sig"}));
  EXPECT_EQ(req["parent"], getpid());
  EXPECT_EQ(x.Run(Local(Path("no-such-program")), request).code(), Status::Code::kIOError);
}

// [slurm]: srun with its options, then seer on the nodes and the subcommand.
TEST_F(ServiceStateTest, SlurmRunsTheAnalysisAsAJobStep) {
  SlurmConfig slurm;
  slurm.on = true;
  slurm.partition = "batch";
  slurm.args = {"--time=10", "--mem=4G"};
  AnalysisCommand c = MakeAnalysisCommand("/proc/self/exe", slurm, "/opt/seer/bin/seer");
  EXPECT_TRUE(c.remote);
  EXPECT_EQ(c.argv, (std::vector<std::string>{"srun", "--quiet", "--nodes=1", "--ntasks=1", "--job-name=seer-window",
                                              "--partition=batch", "--time=10", "--mem=4G", "/opt/seer/bin/seer",
                                              kAnalysisSubcommand}));
  slurm.seer = "/shared/seer";
  slurm.partition.clear();
  slurm.srun = "/usr/local/bin/srun";
  c = MakeAnalysisCommand("/proc/self/exe", slurm, "/opt/seer/bin/seer");
  EXPECT_EQ(c.argv.front(), "/usr/local/bin/srun");
  EXPECT_EQ(c.argv[c.argv.size() - 2], "/shared/seer");
  EXPECT_EQ(std::count(c.argv.begin(), c.argv.end(), std::string("--partition=batch")), 0);
  c = MakeAnalysisCommand("/proc/self/exe", SlurmConfig(), "/opt/seer/bin/seer");
  EXPECT_FALSE(c.remote);
  EXPECT_EQ(c.argv, (std::vector<std::string>{"/proc/self/exe", kAnalysisSubcommand}));
}

// Through a stand-in for srun (it drops its options and runs the rest, as a
// job step would, with the request on stdin and the answer on stdout): the
// request names no parent (the analysis is not the daemon's child), and the
// CPU time is the one the analysis measured, not srun's. The real srun on a
// real cluster: tests/daemon/daemon_slurm_test.sh.
TEST_F(ServiceStateTest, ARemoteAnalysisAnswersThroughSrun) {
  const std::string srun = Script("srun", "while [ \"${1#--}\" != \"$1\" ]; do shift; done; exec \"$@\"");
  const std::string seer =
      Script("seer", "cat > " + Path("request.json") + R"(; echo '{"analysis": {"events": 5}, "cpu_seconds": 7.5}')");
  SlurmConfig slurm;
  slurm.on = true;
  slurm.srun = srun;
  slurm.seer = seer;
  Exchange x;
  AnalysisRequest request;
  request.window_path = Path("w.seer");
  request.engines = {"deadlock"};
  Status st = x.Run(MakeAnalysisCommand("/proc/self/exe", slurm, "unused"), request);
  EXPECT_FALSE(x.cancelled);
  const nlohmann::json req = nlohmann::json::parse(Read("request.json"));
  EXPECT_EQ(req["parent"], 0);
  EXPECT_EQ(req["window"], request.window_path);
  // The stand-in's answer lacks fields a real one has: an error, but its CPU time was read.
  EXPECT_EQ(x.cpu, 7.5) << st.ToString();
  // srun that cannot start, and srun that fails: named as srun.
  slurm.srun = Path("no-such-srun");
  st = x.Run(MakeAnalysisCommand("/proc/self/exe", slurm, "unused"), request);
  EXPECT_EQ(st.code(), Status::Code::kIOError);
  EXPECT_NE(st.message().find("[slurm] srun"), std::string::npos) << st.ToString();
  slurm.srun = Script("failing-srun", "echo 'srun: error: invalid partition specified' >&2; exit 1");
  st = x.Run(MakeAnalysisCommand("/proc/self/exe", slurm, "unused"), request);
  EXPECT_NE(st.message().find("srun (its job step's messages are in the daemon's log) exited with status 1"),
            std::string::npos)
      << st.ToString();
}

// A cancel asks srun with SIGTERM (which it passes on to its job step, and
// ends): killed outright, it would leave the step running on its node.
TEST_F(ServiceStateTest, ACancelledRemoteAnalysisStopsSrunWithSigterm) {
  SlurmConfig slurm;
  slurm.on = true;
  slurm.srun = Script("srun", "trap 'echo term > " + Path("got-term") + "; kill $!; exit 143' TERM; sleep 60 & wait");
  const CancelledRun run = AnalyzeAndCancel(MakeAnalysisCommand("/proc/self/exe", slurm, "seer"), Path("w.seer"));
  EXPECT_FALSE(run.st.ok());
  EXPECT_TRUE(run.cancelled);
  EXPECT_LT(run.took, std::chrono::seconds(5));
  EXPECT_EQ(Read("got-term"), "term\n");
}

}  // namespace
}  // namespace seer::daemon
