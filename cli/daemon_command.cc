// `seer daemon`: the always-on service (daemon/, docs/daemon.md). The
// options and the config file, the signals (SIGTERM and SIGINT end it with the
// open windows closed and the analysis cancelled, SIGHUP reloads the config
// file), and the log line that says where it listens. Also the hidden
// subcommand the daemon runs each window's analysis with.
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "cli/command.h"
#include "cli/commands.h"
#include "daemon/analysis_process.h"
#include "daemon/config.h"
#include "daemon/service.h"
#include "recorder/runtime_modes/watch_options.h"

namespace seer::cli {

namespace {

std::atomic<int> g_stop_signal{0};
std::atomic<bool> g_reload{false};

// Handlers, not a blocked mask and sigwait: a blocked mask would be inherited
// by the targets the daemon launches.
void OnStop(int sig) { g_stop_signal.store(sig); }
void OnHangUp(int) { g_reload.store(true); }

struct DaemonArgs {
  std::string config_path;
  std::string listen;
  std::string dir;
  std::string window;
  std::string duty;
  std::string analyses;
  bool analyses_given = false;
  std::string watch;  // --watch[=PERCENT]
  bool watch_given = false;
  pid_t pid = 0;
  std::string name;
  std::vector<std::string> command;
};

// The config file (if any), then the flags over it.
Status BuildConfig(const DaemonArgs& a, daemon::ServiceConfig* c) {
  *c = daemon::ServiceConfig();
  if (!a.config_path.empty()) {
    Status st = daemon::LoadConfigFile(a.config_path, c);
    if (!st.ok()) return st;
  }
  Status st;
  if (!a.listen.empty()) st = daemon::ParseListen(a.listen, &c->listen_host, &c->listen_port);
  if (st.ok() && !a.dir.empty()) c->dir = a.dir;
  if (st.ok() && !a.window.empty()) st = daemon::ParseDuration(a.window, &c->window_s).WithContext("--window");
  if (st.ok() && !a.duty.empty()) st = daemon::ParseDutyCycle(a.duty, &c->duty_on_s, &c->duty_period_s);
  if (!st.ok()) return st;
  if (a.analyses_given) c->analyses = a.analyses;
  if (a.watch_given) {
    st = recorder::ParseWatchShare(a.watch, &c->watch_percent).WithContext("--watch");
    if (!st.ok()) return st;
  }
  // Targets on the command line replace those of the file.
  std::vector<daemon::TargetConfig> targets;
  if (a.pid > 0) targets.push_back({a.pid, "", {}});
  if (!a.name.empty()) targets.push_back({0, a.name, {}});
  if (!a.command.empty()) targets.push_back({0, "", a.command});
  if (!targets.empty()) c->targets = targets;
  return daemon::ValidateConfig(*c);
}

int RunDaemon(const DaemonArgs& args) {
  daemon::ServiceConfig config;
  Status st = BuildConfig(args, &config);
  if (!st.ok()) {
    fprintf(stderr, "seer daemon: %s\n", st.ToString().c_str());
    return kExitError;
  }
  struct sigaction stop = {};
  stop.sa_handler = OnStop;
  sigaction(SIGTERM, &stop, nullptr);
  sigaction(SIGINT, &stop, nullptr);
  struct sigaction hup = {};
  hup.sa_handler = OnHangUp;
  sigaction(SIGHUP, &hup, nullptr);

  std::unique_ptr<daemon::Service> svc;
  st = daemon::Service::Start(config, &svc);
  if (!st.ok()) {
    fprintf(stderr, "seer daemon: %s\n", st.ToString().c_str());
    return kExitError;
  }
  fprintf(stderr, "seer daemon: listening on http://%s:%d/ (windows in %s)\n", config.listen_host.c_str(), svc->port(),
          config.dir.c_str());
  while (g_stop_signal.load() == 0) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    if (!g_reload.exchange(false)) continue;
    if (args.config_path.empty()) {
      fprintf(stderr, "seer daemon: SIGHUP: no --config file to reload\n");
      continue;
    }
    daemon::ServiceConfig fresh;
    Status r = BuildConfig(args, &fresh);
    if (r.ok()) r = svc->Reload(fresh);
    if (!r.ok())
      fprintf(stderr, "seer daemon: reload refused, the running configuration stays: %s\n", r.ToString().c_str());
  }
  fprintf(stderr, "seer daemon: %s: closing the windows, cancelling the analysis\n", strsignal(g_stop_signal.load()));
  svc->Stop();
  fprintf(stderr, "seer daemon: stopped\n");
  return kExitOk;
}

}  // namespace

void RegisterDaemon(CLI::App& app, Runner& runner) {
  auto args = std::make_shared<DaemonArgs>();
  CLI::App* sub =
      app.add_subcommand("daemon",
                         "Record targets always on, in windows, analyse each window in the background, and serve "
                         "/metrics (Prometheus), /findings and a dashboard over HTTP");
  sub->add_option("--config", args->config_path, "TOML configuration file (docs/daemon.md); flags override it");
  sub->add_option("--listen", args->listen, "HOST:PORT to serve on (default 127.0.0.1:9464; port 0: any free port)");
  sub->add_option("--dir", args->dir, "Directory for the window trace files (created with mode 0700)");
  sub->add_option("--window", args->window, "Length of a window (default 10s)");
  sub->add_option("--duty", args->duty,
                  "Duty cycle ON/PERIOD: record ON of every PERIOD (default 2s/60s), or continuous");
  sub->add_option("-a,--analysis", args->analyses, "Analyses run over each window (default: deadlock)")
      ->each([args](const std::string&) { args->analyses_given = true; });
  sub->add_option("--watch", args->watch,
                  "Races caught in the act in the programs the daemon launches unmodified (seer record --watch): "
                  "PERCENT of each thread's time it may be held (default 2); the watch analysis runs on each window")
      ->expected(0, 1);
  sub->add_option("-p,--pid", args->pid, "Record this running process (by injecting the runtime)");
  sub->add_option("--name", args->name,
                  "Record the running process with this executable name, and its successor when it restarts");
  sub->add_option("command", args->command, "A program to launch and record, with its arguments (after --)");
  sub->positionals_at_end();
  sub->callback([args, &runner, sub]() {
    args->watch_given = sub->count("--watch") > 0;
    runner.run = [args]() { return RunDaemon(*args); };
  });

  // The daemon's analysis of one window, in a process of its own
  // (daemon/analysis_process.h). Hidden: it speaks JSON to the daemon.
  CLI::App* child = app.add_subcommand(daemon::kAnalysisSubcommand, "");
  child->group("");
  child->callback([&runner]() { runner.run = [] { return daemon::AnalysisProcessMain(); }; });
}

}  // namespace seer::cli
