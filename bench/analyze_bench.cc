// End-to-end throughput of the race engines as `seer analyze` runs them: decode
// included, through the driver (RunAnalyses), on a `seer gen` trace shaped like
// the target (4 threads, 3 locks, 1,000 variables, 1,000 locations).
// Each measurement runs in a forked child so that its peak RSS is its own.
//   build/bench/seer_analyze_bench                  1M and 10M events
//   build/bench/seer_analyze_bench 1000000 100000000  any sizes (flat scaling)
//   SEER_BENCH_ENGINES=hb,wcp build/bench/...       a subset of the rows
// Prints one line per (size, engine): events/s, wall seconds, peak RSS and, for
// wcp, the largest queue total as a fraction of events.
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "predictor/analyze.h"
#include "predictor/wcp/wcp_engine.h"
#include "tools/gen/generator.h"

namespace seer {
namespace {

// The wcp row wraps the registered engine to read its queue statistic afterwards.
WcpEngine* g_wcp = nullptr;
std::unique_ptr<Engine> NewObservedWcp(const AnalysisOptions& options) {
  std::unique_ptr<Engine> e = FindEngine("wcp")->create(options);
  g_wcp = dynamic_cast<WcpEngine*>(e.get());
  return e;
}

Status WriteTrace(uint64_t events, const std::string& path) {
  GenOptions o;
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
  if (s.ok()) s = seer::Generate(o, w.get());
  if (s.ok()) s = w->Close();
  return s;
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
  const auto start = std::chrono::steady_clock::now();
  if (s.ok()) s = RunAnalyses(path, specs, AnalysisOptions(), &run);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (!s.ok()) {
    std::fprintf(stderr, "%s: %s\n", label.c_str(), s.ToString().c_str());
    _exit(2);
  }
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  std::string queue = "-";
  if (g_wcp != nullptr)
    queue = std::to_string(static_cast<double>(g_wcp->max_queue_entries()) / static_cast<double>(events));
  std::printf("%-10llu %-10s %12.2f %9.3f %12.1f %14s\n", static_cast<unsigned long long>(events), label.c_str(),
              static_cast<double>(run.events) / seconds / 1e6, seconds, static_cast<double>(u.ru_maxrss) / 1024.0,
              queue.c_str());
  std::fflush(stdout);
  _exit(0);
}

}  // namespace
}  // namespace seer

int main(int argc, char** argv) {
  std::vector<uint64_t> sizes;
  for (int i = 1; i < argc; ++i) sizes.push_back(std::strtoull(argv[i], nullptr, 10));
  if (sizes.empty()) sizes = {1'000'000, 10'000'000};
  std::vector<std::pair<std::string, std::string>> rows = {
      {"decode", "-"}, {"hb", "hb"}, {"shb", "shb"}, {"wcp", "wcp"}, {"lockset", "lockset"},
      {"w3-linear", "w3-linear"}, {"all", "hb,shb,wcp,lockset,w3-linear"}};
  if (const char* only = std::getenv("SEER_BENCH_ENGINES")) {
    const std::string wanted = std::string(",") + only + ",";
    std::erase_if(rows, [&](const auto& r) { return wanted.find("," + r.first + ",") == std::string::npos; });
  }
  std::printf("%-10s %-10s %12s %9s %12s %14s\n", "events", "analysis", "Mevents/s", "seconds", "peak_RSS_MiB",
              "wcp_max_queue");
  for (uint64_t events : sizes) {
    const std::string path = "/tmp/seer_analyze_bench_" + std::to_string(getpid()) + ".seer";
    seer::Status s = seer::WriteTrace(events, path);
    if (!s.ok()) {
      std::fprintf(stderr, "generating %llu events: %s\n", static_cast<unsigned long long>(events),
                   s.ToString().c_str());
      return 2;
    }
    for (const auto& [label, list] : rows)
      seer::Measure(path, events, label, list == "-" ? std::string() : list);
    std::remove(path.c_str());
  }
  return 0;
}
