// The runtime benchmark: one access-heavy workload (threads updating shared heap
// data under striped locks) run natively, recorded in-process with seer, and
// under ThreadSanitizer, side by side. Prints wall times, slowdowns, peak memory,
// bytes per recorded access on disk and the events/s recorded with zero loss.
//
//   seer_runtime_bench [THREADS [OPS_PER_THREAD [REPEATS]]]
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "runtime/drain/inproc_recorder.h"
#include "seer/trace.h"

namespace {

const std::string kDir = SEER_BENCH_WORKLOADS;

struct Run {
  double seconds = 0;     // the target's wall time
  double total = 0;       // until the trace was closed (recorded runs)
  long rss_kb = 0;        // the target's peak RSS
  long recorder_rss_kb = 0;
  uint64_t events = 0, accesses = 0, lost = 0, trace_bytes = 0, spool_peak = 0;
};

// Runs a plain binary, its stdout discarded; wall time and peak RSS from wait4.
bool RunPlain(const std::string& path, const std::vector<std::string>& args, Run* run) {
  const auto start = std::chrono::steady_clock::now();
  const pid_t pid = fork();
  if (pid == 0) {
    freopen("/dev/null", "w", stdout);
    std::vector<char*> argv = {const_cast<char*>(path.c_str())};
    for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    execv(path.c_str(), argv.data());
    _exit(127);
  }
  int status = 0;
  struct rusage ru = {};
  wait4(pid, &status, 0, &ru);
  run->seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  run->total = run->seconds;
  run->rss_kb = ru.ru_maxrss;
  return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

bool RunRecorded(const std::vector<std::string>& args, Run* run) {
  const std::string trace = "/tmp/seer_runtime_bench_" + std::to_string(getpid()) + ".seer";
  std::vector<std::string> argv = {kDir + "/workload_seer"};
  argv.insert(argv.end(), args.begin(), args.end());
  seer::InprocOptions options;
  options.writer.sync_on_close = false;
  seer::InprocResult result;
  // Only the target's stdout (a checksum) is noise: send ours to /dev/null for the run.
  fflush(stdout);
  const int saved = dup(1);
  freopen("/dev/null", "w", stdout);
  const auto start = std::chrono::steady_clock::now();
  seer::Status s = seer::RecordInproc(argv, options, trace, &result);
  run->total = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  fflush(stdout);
  dup2(saved, 1);
  close(saved);
  if (!s.ok()) {
    std::fprintf(stderr, "record failed: %s\n", s.ToString().c_str());
    return false;
  }
  run->seconds = result.wall_seconds;
  run->rss_kb = result.max_rss_kb;
  run->events = result.events;
  run->lost = result.lost;
  run->spool_peak = result.spool_peak_bytes;
  struct rusage self = {};
  getrusage(RUSAGE_SELF, &self);
  run->recorder_rss_kb = self.ru_maxrss;
  struct stat st = {};
  stat(trace.c_str(), &st);
  run->trace_bytes = static_cast<uint64_t>(st.st_size);
  std::unique_ptr<seer::TraceReader> reader;
  if (seer::TraceReader::Open(trace, &reader).ok()) {
    const auto& c = reader->info().counters;
    run->accesses = c.by_kind[static_cast<int>(seer::EventKind::kRead)] +
                    c.by_kind[static_cast<int>(seer::EventKind::kWrite)];
  }
  unlink(trace.c_str());
  return result.exit_code == 0;
}

Run Median(std::vector<Run> runs) {
  std::sort(runs.begin(), runs.end(), [](const Run& a, const Run& b) { return a.seconds < b.seconds; });
  return runs[runs.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  const std::string threads = argc > 1 ? argv[1] : "2";
  const std::string ops = argc > 2 ? argv[2] : "2000000";
  const int repeats = argc > 3 ? std::max(1, std::atoi(argv[3])) : 3;
  const std::vector<std::string> args = {threads, ops};

  std::vector<Run> native, recorded, tsan;
  for (int i = 0; i < repeats; ++i) {
    Run n, r, t;
    if (!RunPlain(kDir + "/workload_native", args, &n) || !RunRecorded(args, &r) ||
        !RunPlain(kDir + "/workload_tsan", args, &t)) {
      std::fprintf(stderr, "a workload run failed\n");
      return 1;
    }
    native.push_back(n);
    recorded.push_back(r);
    tsan.push_back(t);
  }
  const Run n = Median(native), r = Median(recorded), t = Median(tsan);
  std::printf("workload: %s threads x %s ops (8 counters read+written under a striped lock per op), median of %d\n",
              threads.c_str(), ops.c_str(), repeats);
  std::printf("%-28s %10s %9s %12s\n", "", "wall s", "slowdown", "peak RSS MB");
  std::printf("%-28s %10.3f %9.2f %12.1f\n", "native", n.seconds, 1.0, n.rss_kb / 1024.0);
  std::printf("%-28s %10.3f %9.2f %12.1f\n", "seer inproc: target", r.seconds, r.seconds / n.seconds,
              r.rss_kb / 1024.0);
  std::printf("%-28s %10.3f %9.2f %12.1f\n", "seer inproc: until closed", r.total, r.total / n.seconds,
              r.recorder_rss_kb / 1024.0);
  std::printf("%-28s %10.3f %9.2f %12.1f\n", "ThreadSanitizer", t.seconds, t.seconds / n.seconds, t.rss_kb / 1024.0);
  std::printf("seer target slowdown / tsan slowdown: %.2f (target: <= 0.20)\n",
              (r.seconds / n.seconds) / (t.seconds / n.seconds));
  std::printf("events %llu (accesses %llu), lost %llu\n", static_cast<unsigned long long>(r.events),
              static_cast<unsigned long long>(r.accesses), static_cast<unsigned long long>(r.lost));
  std::printf("trace %.1f MB: %.2f bytes per access, %.2f bytes per event\n", r.trace_bytes / 1048576.0,
              r.accesses ? static_cast<double>(r.trace_bytes) / r.accesses : 0.0,
              r.events ? static_cast<double>(r.trace_bytes) / r.events : 0.0);
  std::printf("recorded %.1f M events/s over the target's run, %.1f M events/s until the trace was closed%s\n",
              r.events / r.seconds / 1e6, r.events / r.total / 1e6, r.lost == 0 ? " (zero loss)" : " (WITH LOSS)");
  std::printf("spool peak %.1f MB (ring data copied out, not yet merged)\n", r.spool_peak / 1048576.0);
  return 0;
}
