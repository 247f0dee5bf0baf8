#include "daemon/analysis_process.h"

#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <spawn.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <set>
#include <thread>

#include <nlohmann/json.hpp>

#include "daemon/analysis_json.h"
#include "daemon/clock.h"
#include "predictor/engine.h"

extern char** environ;

namespace seer::daemon {

namespace {

using nlohmann::json;

constexpr int kPollMs = 100;  // how often a wait looks at `cancel`

Status Cancelled() { return Status::Internal("the analysis was cancelled"); }

// Sends all of `data`, waiting in steps so that a cancel is seen.
Status SendAll(int fd, const std::string& data, const std::atomic<bool>& cancel) {
  size_t done = 0;
  while (done < data.size()) {
    if (cancel.load()) return Cancelled();
    struct pollfd p = {fd, POLLOUT, 0};
    const int r = poll(&p, 1, kPollMs);
    if (r < 0 && errno != EINTR) return Status::IOError(std::string("poll: ") + std::strerror(errno));
    if (r <= 0) continue;
    const ssize_t n = send(fd, data.data() + done, data.size() - done, MSG_NOSIGNAL | MSG_DONTWAIT);
    if (n < 0 && (errno == EAGAIN || errno == EINTR)) continue;
    if (n < 0)
      return Status::IOError(std::string("sending the request to the analysis process: ") + std::strerror(errno));
    done += static_cast<size_t>(n);
  }
  return Status::Ok();
}

// Reads until the other end closes, waiting in steps so that a cancel is seen.
Status ReceiveAll(int fd, std::string* out, const std::atomic<bool>& cancel) {
  char buf[65536];
  for (;;) {
    if (cancel.load()) return Cancelled();
    struct pollfd p = {fd, POLLIN, 0};
    const int r = poll(&p, 1, kPollMs);
    if (r < 0 && errno != EINTR) return Status::IOError(std::string("poll: ") + std::strerror(errno));
    if (r <= 0) continue;
    const ssize_t n = read(fd, buf, sizeof buf);
    if (n < 0 && (errno == EAGAIN || errno == EINTR)) continue;
    if (n < 0) return Status::IOError(std::string("reading the analysis process's answer: ") + std::strerror(errno));
    if (n == 0) return Status::Ok();
    out->append(buf, static_cast<size_t>(n));
  }
}

// Waits up to `ms` for `pid` to end: true when it was reaped.
bool ReapWithin(pid_t pid, int ms, const std::atomic<bool>* cancel, int* status, struct rusage* ru) {
  for (int i = 0; i < ms / 10 && (cancel == nullptr || !cancel->load()); ++i) {
    if (wait4(pid, status, WNOHANG, ru) == pid) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return false;
}

// Reaps `pid`. After a failed exchange (`failed`) it waits up to a second for
// the child to end by itself (a broken socket usually means it is exiting,
// and how it ended says more), then kills it; a cancel kills it at once.
// srun (`remote`) gets SIGTERM first and 5 s to cancel its job step: killed,
// it would leave the step running on its node. True when it was killed here.
bool Reap(pid_t pid, bool failed, bool remote, const std::atomic<bool>& cancel, int* status, struct rusage* ru) {
  bool reaped = false;
  bool killed = false;
  if (failed) {
    reaped = ReapWithin(pid, 1000, &cancel, status, ru);
    if (!reaped && remote && kill(pid, SIGTERM) == 0) {
      killed = true;
      reaped = ReapWithin(pid, 5000, nullptr, status, ru);
    }
    if (!reaped) killed = kill(pid, SIGKILL) == 0 || killed;
  }
  while (!reaped && wait4(pid, status, 0, ru) < 0 && errno == EINTR) {
  }
  return killed;
}

// The status an error answer carries, rebuilt with its code.
Status StatusOf(int code, const std::string& message) {
  switch (static_cast<Status::Code>(code)) {
    case Status::Code::kInvalidArgument: return Status::InvalidArgument(message);
    case Status::Code::kNotFound: return Status::NotFound(message);
    case Status::Code::kCorruption: return Status::Corruption(message);
    case Status::Code::kNotSupported: return Status::NotSupported(message);
    case Status::Code::kIOError: return Status::IOError(message);
    case Status::Code::kPermission: return Status::Permission(message);
    default: return Status::Internal(message);
  }
}

Status ParseAnswer(const std::string& text, WindowAnalysis* out, double* cpu_seconds) {
  const json answer = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (answer.is_discarded() || !answer.is_object())
    return Status::Corruption("the analysis process's answer is not JSON (" + std::to_string(text.size()) + " bytes)");
  // Its own measure: more than the child's when the child is srun.
  if (auto cpu = answer.find("cpu_seconds");
      cpu != answer.end() && cpu->is_number() && cpu->get<double>() > *cpu_seconds)
    *cpu_seconds = cpu->get<double>();
  auto error = answer.find("error");
  if (error != answer.end()) {
    if (!error->is_object() || !error->value("code", json()).is_number_integer() ||
        !error->value("message", json()).is_string())
      return Status::Corruption("the analysis process's error answer is malformed");
    return StatusOf((*error)["code"].get<int>(), (*error)["message"].get<std::string>());
  }
  auto analysis = answer.find("analysis");
  if (analysis == answer.end()) return Status::Corruption("the analysis process's answer has no analysis");
  return AnalysisFromJson(*analysis, out).WithContext("the analysis process's answer");
}

bool WriteAll(int fd, const std::string& data) {
  size_t done = 0;
  while (done < data.size()) {
    const ssize_t n = write(fd, data.data() + done, data.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    done += static_cast<size_t>(n);
  }
  return true;
}

}  // namespace

AnalysisCommand MakeAnalysisCommand(const std::string& program, const SlurmConfig& slurm,
                                    const std::string& self_path) {
  AnalysisCommand c;
  if (!slurm.on) {
    c.argv = {program, kAnalysisSubcommand};
    return c;
  }
  c.remote = true;
  c.argv = {slurm.srun, "--quiet", "--nodes=1", "--ntasks=1", "--job-name=seer-window"};
  if (!slurm.partition.empty()) c.argv.push_back("--partition=" + slurm.partition);
  c.argv.insert(c.argv.end(), slurm.args.begin(), slurm.args.end());
  c.argv.push_back(slurm.seer.empty() ? self_path : slurm.seer);
  c.argv.push_back(kAnalysisSubcommand);
  return c;
}

Status AnalyzeInChildProcess(const AnalysisCommand& command, const AnalysisRequest& request,
                             const std::atomic<bool>& cancel, WindowAnalysis* out, double* cpu_seconds,
                             bool* cancelled) {
  *cancelled = false;
  *cpu_seconds = 0;
  int sv[2];
  // Close-on-exec: the targets the daemon launches must not inherit them.
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0)
    return Status::IOError(std::string("socketpair: ") + std::strerror(errno));
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, sv[1], 0);
  posix_spawn_file_actions_adddup2(&actions, sv[1], 1);
  // Nothing else of the daemon's (its listening socket, the targets' rings)
  // may live on in the child; stderr (its log) stays.
  posix_spawn_file_actions_addclosefrom_np(&actions, 3);
  std::vector<std::string> args = command.argv;
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  pid_t pid = 0;
  // posix_spawnp: srun is looked up in PATH.
  const int rc = posix_spawnp(&pid, argv[0], &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  close(sv[1]);
  if (rc != 0) {
    close(sv[0]);
    return Status::IOError("cannot start the analysis process " + args[0] + ": " + std::strerror(rc) +
                           (command.remote ? " ([slurm] srun in the configuration)" : ""));
  }
  // `parent` 0: the analysis process runs under srun's job step, not as our child.
  const json req = {{"window", request.window_path},
                    {"engines", request.engines},
                    {"have_html", request.have_html},
                    {"parent", command.remote ? int64_t{0} : static_cast<int64_t>(getpid())}};
  Status st = SendAll(sv[0], DumpJson(req), cancel);
  shutdown(sv[0], SHUT_WR);  // the end of the request
  std::string answer;
  if (st.ok()) st = ReceiveAll(sv[0], &answer, cancel);
  close(sv[0]);
  int status = 0;
  struct rusage ru = {};
  const bool killed = Reap(pid, !st.ok(), command.remote, cancel, &status, &ru);
  *cpu_seconds = CpuSeconds(ru);
  if (!st.ok() && cancel.load()) {
    *cancelled = true;
    return st;
  }
  if (killed) return st;
  const std::string who =
      command.remote ? "srun (its job step's messages are in the daemon's log)" : "the analysis process";
  if (WIFSIGNALED(status))
    return Status::Internal(who + " was killed by " + strsignal(WTERMSIG(status)) +
                            (WTERMSIG(status) == SIGKILL ? " (out of memory?)" : ""));
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
    return Status::Internal(who + " exited with status " + std::to_string(WEXITSTATUS(status)));
  if (!st.ok()) return st;
  return ParseAnswer(answer, out, cpu_seconds);
}

int AnalysisProcessMain() {
  // Ends with the daemon (precisely: with the daemon thread that started it).
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  // Idle priority: a window waits rather than taking CPU from the target.
  struct sched_param param = {};
  if (sched_setscheduler(0, SCHED_IDLE, &param) != 0)
    fprintf(stderr, "seer daemon: cannot run the analysis at idle priority; it runs at normal priority\n");
  std::string text;
  char buf[65536];
  for (;;) {
    const ssize_t n = read(0, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      fprintf(stderr, "seer %s: cannot read the request: %s\n", kAnalysisSubcommand, std::strerror(errno));
      return 2;
    }
    if (n == 0) break;
    text.append(buf, static_cast<size_t>(n));
  }
  const json req = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (req.is_discarded() || !req.is_object() || !req.value("window", json()).is_string() ||
      !req.value("engines", json()).is_array() || !req.value("have_html", json()).is_array() ||
      !req.value("parent", json()).is_number_integer()) {
    fprintf(stderr, "seer %s: a malformed request (this command is for seer daemon only)\n", kAnalysisSubcommand);
    return 2;
  }
  // The daemon died before the death signal was asked for: nobody wants the
  // answer. (Parent 0: started by srun on a node; srun ends the step.)
  if (req["parent"].get<int64_t>() != 0 && getppid() != req["parent"].get<int64_t>()) {
    fprintf(stderr, "seer %s: the daemon that asked (process %lld) is gone\n", kAnalysisSubcommand,
            static_cast<long long>(req["parent"].get<int64_t>()));
    return 2;
  }
  if (const char* slow = getenv(kTestSlowAnalysisEnv))
    std::this_thread::sleep_for(std::chrono::milliseconds(atol(slow)));

  std::vector<const predictor::EngineSpec*> engines;
  Status st;
  for (const json& name : req["engines"]) {
    const predictor::EngineSpec* spec = name.is_string() ? predictor::FindEngine(name.get<std::string>()) : nullptr;
    if (spec == nullptr) st = Status::InvalidArgument("unknown analysis " + DumpJson(name));
    engines.push_back(spec);
  }
  std::set<std::string> have_html;
  for (const json& s : req["have_html"])
    if (s.is_string()) have_html.insert(s.get<std::string>());
  WindowAnalysis analysis;
  if (st.ok())
    st = AnalyzeWindow(req["window"].get<std::string>(), engines, &analysis,
                       [&](const std::string& signature) { return have_html.count(signature) == 0; });
  const json answer = st.ok() ? json{{"analysis", AnalysisToJson(analysis)}, {"cpu_seconds", ProcessCpuSeconds()}}
                              : json{{"error", {{"code", static_cast<int>(st.code())}, {"message", st.message()}}}};
  return WriteAll(1, DumpJson(answer)) ? 0 : 2;
}

}  // namespace seer::daemon
