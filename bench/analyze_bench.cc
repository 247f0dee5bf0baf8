// End-to-end throughput of the race engines as `seer analyze` runs them: decode
// included, through the driver (RunAnalyses), on a `seer gen` trace shaped like
// the target (4 threads, 3 locks, 1,000 variables, 1,000 locations).
// Each measurement runs in a forked child so that its peak RSS is its own.
//   build/bench/seer_analyze_bench                  1M and 10M events
//   build/bench/seer_analyze_bench 1000000 100000000  any sizes (flat scaling)
//   SEER_BENCH_ENGINES=hb,wcp build/bench/...       a subset of the rows
// Prints one line per (size, engine): events per CPU second (user + system, less
// sensitive than wall time to other jobs on a shared machine), events per wall
// second, peak RSS, anonymous RSS at the end (peak RSS also counts the pages of the
// memory-mapped trace file that were read, which grow with the trace; the engines'
// own state is anonymous memory) and, for wcp, the largest queue total as a
// fraction of events.
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "gen/generator.h"
#include "predictor/analyze.h"
#include "predictor/engines/wcp/wcp_engine.h"

namespace seer::predictor {
namespace {

// The wcp row wraps the registered engine to read its queue statistic afterwards.
WcpEngine* g_wcp = nullptr;
std::unique_ptr<Engine> NewObservedWcp(const AnalysisOptions& options) {
  std::unique_ptr<Engine> e = FindEngine("wcp")->create(options);
  g_wcp = dynamic_cast<WcpEngine*>(e.get());
  return e;
}

Status WriteTrace(uint64_t events, const std::string& path) {
  gen::GenOptions o;
  o.events = events;
  o.threads = 4;
  o.locks = 3;
  o.variables = 1000;
  o.locations = 1000;
  o.seed = 1;
  std::unique_ptr<TraceWriter> w;
  TraceWriterOptions wo;
  wo.sync_on_close = false;
  Status s = TraceWriter::Create(path, wo, &w);
  if (s.ok()) s = seer::gen::Generate(o, w.get());
  if (s.ok()) s = w->Close();
  return s;
}

double Seconds(const timeval& t) { return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_usec) / 1e6; }

// RssAnon of /proc/self/status, in MiB (0 if unavailable).
double AnonRssMiB() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line))
    if (line.rfind("RssAnon:", 0) == 0) return std::strtod(line.c_str() + 8, nullptr) / 1024.0;
  return 0;
}

// Runs `list` over the trace in a child process and prints its line.
void Measure(const std::string& path, uint64_t events, const std::string& label, const std::string& list) {
  std::fflush(stdout);
  const pid_t pid = fork();
  if (pid < 0) {
    std::perror("fork");
    std::exit(2);
  }
  if (pid > 0) {
    int status = 0;
    waitpid(pid, &status, 0);
    return;
  }
  std::vector<const EngineSpec*> specs;  // none: decode alone
  Status s = list.empty() ? Status::Ok() : SelectEngines(list, &specs);
  EngineSpec observed_wcp{"wcp", "", false, NewObservedWcp};
  for (const EngineSpec*& spec : specs)
    if (spec->name == "wcp") spec = &observed_wcp;
  AnalysisRun run;
  rusage start_usage{};
  getrusage(RUSAGE_SELF, &start_usage);
  const auto start = std::chrono::steady_clock::now();
  if (s.ok()) s = RunAnalyses(path, specs, AnalysisOptions(), &run);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (!s.ok()) {
    std::fprintf(stderr, "%s: %s\n", label.c_str(), s.ToString().c_str());
    _exit(2);
  }
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  const double cpu =
      Seconds(u.ru_utime) + Seconds(u.ru_stime) - Seconds(start_usage.ru_utime) - Seconds(start_usage.ru_stime);
  std::string queue = "-";
  if (g_wcp != nullptr)
    queue = std::to_string(static_cast<double>(g_wcp->max_queue_entries()) / static_cast<double>(events));
  const double n = static_cast<double>(run.events);
  std::printf("%-10llu %-10s %10.2f %10.2f %8.3f %9.1f %9.1f %14s\n", static_cast<unsigned long long>(events),
              label.c_str(), n / cpu / 1e6, n / seconds / 1e6, cpu, static_cast<double>(u.ru_maxrss) / 1024.0,
              AnonRssMiB(), queue.c_str());
  std::fflush(stdout);
  _exit(0);
}

}  // namespace
}  // namespace seer::predictor

int main(int argc, char** argv) {
  std::vector<uint64_t> sizes;
  for (int i = 1; i < argc; ++i) sizes.push_back(std::strtoull(argv[i], nullptr, 10));
  if (sizes.empty()) sizes = {1'000'000, 10'000'000};
  std::vector<std::pair<std::string, std::string>> rows = {{"decode", "-"},
                                                           {"hb", "hb"},
                                                           {"shb", "shb"},
                                                           {"wcp", "wcp"},
                                                           {"lockset", "lockset"},
                                                           {"w3-linear", "w3-linear"},
                                                           {"all", "hb,shb,wcp,lockset,w3-linear"}};
  if (const char* only = std::getenv("SEER_BENCH_ENGINES")) {
    const std::string wanted = std::string(",") + only + ",";
    std::erase_if(rows, [&](const auto& r) { return wanted.find("," + r.first + ",") == std::string::npos; });
  }
  std::printf("%-10s %-10s %10s %10s %8s %9s %9s %14s\n", "events", "analysis", "M/cpu-s", "M/wall-s", "cpu_s",
              "peakRSS", "anonRSS", "wcp_max_queue");
  for (uint64_t events : sizes) {
    const std::string path = "/tmp/seer_analyze_bench_" + std::to_string(getpid()) + ".seer";
    seer::Status s = seer::predictor::WriteTrace(events, path);
    if (!s.ok()) {
      std::fprintf(stderr, "generating %llu events: %s\n", static_cast<unsigned long long>(events),
                   s.ToString().c_str());
      return 2;
    }
    for (const auto& [label, list] : rows)
      seer::predictor::Measure(path, events, label, list == "-" ? std::string() : list);
    std::remove(path.c_str());
  }
  return 0;
}
