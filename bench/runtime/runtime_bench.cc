// The runtime benchmark: an access-heavy workload (workload.c, shape "shared":
// threads updating shared heap data under striped locks; shape "private": each
// lock pair around 128 accesses to thread-private heap memory) run natively,
// recorded in-process with seer, and under ThreadSanitizer, side by side.
// Prints wall times, slowdowns, peak memory, bytes per recorded access on disk,
// the events/s recorded with zero loss and the recorder's events per CPU second.
//
//   seer_runtime_bench [THREADS [OPS_PER_THREAD [REPEATS [shared|private]]]]
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "recorder/recorder.h"
#include "seer/trace.h"

namespace {

const std::string kDir = SEER_BENCH_WORKLOADS;

struct Run {
  double seconds = 0;  // the target's wall time
  double total = 0;    // until the trace was closed (recorded runs)
  double cpu = 0;      // the target's user + system time
  long rss_kb = 0;     // the target's peak RSS
  long recorder_rss_kb = 0;
  double recorder_cpu = 0;  // the recorder's own user + system time (all its threads)
  double recorder_sys = 0;  // of which system time (page faults on fresh spool memory, mostly)
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
  run->cpu = static_cast<double>(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
             static_cast<double>(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
  return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

bool RunRecorded(const std::vector<std::string>& args, Run* run) {
  const std::string trace = "/tmp/seer_runtime_bench_" + std::to_string(getpid()) + ".seer";
  std::vector<std::string> argv = {kDir + "/workload_seer"};
  argv.insert(argv.end(), args.begin(), args.end());
  seer::recorder::RecordOptions options;
  options.mode = seer::recorder::RecordMode::kInproc;
  options.command = argv;
  options.output = trace;
  options.inproc.writer.sync_on_close = false;
  seer::recorder::RecordResult result;
  // Only the target's stdout (a checksum) is noise: send ours to /dev/null for the run.
  fflush(stdout);
  const int saved = dup(1);
  freopen("/dev/null", "w", stdout);
  const auto start = std::chrono::steady_clock::now();
  seer::Status s = seer::recorder::Record(options, &result);
  run->total = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  fflush(stdout);
  dup2(saved, 1);
  close(saved);
  if (!s.ok()) {
    std::fprintf(stderr, "record failed: %s\n", s.ToString().c_str());
    return false;
  }
  run->seconds = result.wall_seconds;
  run->cpu = result.target_cpu_seconds;
  run->rss_kb = result.max_rss_kb;
  run->events = result.events;
  run->lost = result.lost;
  run->spool_peak = result.spool_peak_bytes;
  struct rusage self = {};
  getrusage(RUSAGE_SELF, &self);
  run->recorder_rss_kb = self.ru_maxrss;
  run->recorder_sys = static_cast<double>(self.ru_stime.tv_sec) + static_cast<double>(self.ru_stime.tv_usec) / 1e6;
  run->recorder_cpu = static_cast<double>(self.ru_utime.tv_sec + self.ru_stime.tv_sec) +
                      static_cast<double>(self.ru_utime.tv_usec + self.ru_stime.tv_usec) / 1e6;
  struct stat st = {};
  stat(trace.c_str(), &st);
  run->trace_bytes = static_cast<uint64_t>(st.st_size);
  std::unique_ptr<seer::TraceReader> reader;
  if (seer::TraceReader::Open(trace, &reader).ok()) {
    const auto& c = reader->info().counters;
    run->accesses =
        c.by_kind[static_cast<int>(seer::EventKind::kRead)] + c.by_kind[static_cast<int>(seer::EventKind::kWrite)];
  }
  unlink(trace.c_str());
  return result.exit_code == 0;
}

// Peak RSS is inherited through fork (the child starts with a copy of our
// memory map and its high-water mark), so every measured run is started from a
// freshly exec'ed copy of this program, which prints the figures on stdout.
bool RunFresh(const std::string& mode, const std::vector<std::string>& args, Run* run) {
  char self[4096];
  const ssize_t len = readlink("/proc/self/exe", self, sizeof self - 1);
  if (len <= 0) return false;
  self[len] = '\0';
  std::string cmd = std::string(self) + " " + mode;
  for (const auto& a : args) cmd += " " + a;
  FILE* p = popen(cmd.c_str(), "r");
  if (p == nullptr) return false;
  unsigned long long events = 0, accesses = 0, lost = 0, trace_bytes = 0, spool = 0;
  int ok = 0;
  const int n = std::fscanf(p, "%d %lf %lf %lf %ld %ld %llu %llu %llu %llu %llu %lf %lf", &ok, &run->seconds,
                            &run->total, &run->cpu, &run->rss_kb, &run->recorder_rss_kb, &events, &accesses, &lost,
                            &trace_bytes, &spool, &run->recorder_cpu, &run->recorder_sys);
  pclose(p);
  run->events = events;
  run->accesses = accesses;
  run->lost = lost;
  run->trace_bytes = trace_bytes;
  run->spool_peak = spool;
  return n == 13 && ok == 1;
}

void PrintRun(bool ok, const Run& r) {
  std::printf("%d %.6f %.6f %.6f %ld %ld %llu %llu %llu %llu %llu %.6f %.6f\n", ok ? 1 : 0, r.seconds, r.total, r.cpu,
              r.rss_kb, r.recorder_rss_kb, static_cast<unsigned long long>(r.events),
              static_cast<unsigned long long>(r.accesses), static_cast<unsigned long long>(r.lost),
              static_cast<unsigned long long>(r.trace_bytes), static_cast<unsigned long long>(r.spool_peak),
              r.recorder_cpu, r.recorder_sys);
}

// True when this machine is a VM whose balloon reports free memory to its
// host (virtio device 5, feature bit 5): freed pages go back to the host, and
// a recording's first touches of its spool then cost page faults in the host,
// seen here as system time (bench/runtime/README.md, 2026-11-27).
bool HostTakesFreedMemory() {
  for (int i = 0; i < 64; ++i) {
    const std::string dev = "/sys/bus/virtio/devices/virtio" + std::to_string(i);
    FILE* id = fopen((dev + "/device").c_str(), "r");
    if (id == nullptr) continue;
    unsigned device = 0;
    const bool read = std::fscanf(id, "%x", &device) == 1;
    fclose(id);
    if (!read || device != 5) continue;
    FILE* f = fopen((dev + "/features").c_str(), "r");
    if (f == nullptr) return false;
    char bits[129] = {};
    const bool got = std::fscanf(f, "%128s", bits) == 1;
    fclose(f);
    return got && std::strlen(bits) > 5 && bits[5] == '1';
  }
  return false;
}

Run Median(std::vector<Run> runs) {
  std::sort(runs.begin(), runs.end(), [](const Run& a, const Run& b) { return a.seconds < b.seconds; });
  return runs[runs.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  if (argc == 5 && std::string(argv[1]).rfind("--child-", 0) == 0) {
    const std::string mode = argv[1];
    const std::vector<std::string> args = {argv[2], argv[3], argv[4]};
    Run r;
    bool ok = false;
    if (mode == "--child-native") ok = RunPlain(kDir + "/workload_native", args, &r);
    if (mode == "--child-tsan") ok = RunPlain(kDir + "/workload_tsan", args, &r);
    if (mode == "--child-record") ok = RunRecorded(args, &r);
    PrintRun(ok, r);
    return ok ? 0 : 1;
  }
  const std::string threads = argc > 1 ? argv[1] : "2";
  const std::string ops = argc > 2 ? argv[2] : "2000000";
  const int repeats = argc > 3 ? std::max(1, std::atoi(argv[3])) : 3;
  const std::string shape = argc > 4 ? argv[4] : "shared";
  if (shape != "shared" && shape != "private") {
    std::fprintf(stderr, "usage: seer_runtime_bench [THREADS [OPS_PER_THREAD [REPEATS [shared|private]]]]\n");
    return 2;
  }
  const std::vector<std::string> args = {threads, ops, shape};

  std::vector<Run> native, recorded, tsan;
  for (int i = 0; i < repeats; ++i) {
    Run n, r, t;
    if (!RunFresh("--child-native", args, &n) || !RunFresh("--child-record", args, &r) ||
        !RunFresh("--child-tsan", args, &t)) {
      std::fprintf(stderr, "a workload run failed\n");
      return 1;
    }
    native.push_back(n);
    recorded.push_back(r);
    tsan.push_back(t);
  }
  const Run n = Median(native), r = Median(recorded), t = Median(tsan);
  std::printf("workload: %s threads x %s ops (%s), median of %d\n", threads.c_str(), ops.c_str(),
              shape == "shared" ? "8 shared counters read+written under a striped lock per op"
                                : "64 private heap words read+written under the thread's own lock per op",
              repeats);
  std::printf("%-34s %8s %9s %8s %9s %12s\n", "", "wall s", "slowdown", "cpu s", "cpu x", "peak RSS MB");
  auto row = [&](const char* name, double wall, double cpu, long rss_kb) {
    std::printf("%-34s %8.3f %9.2f %8.3f %9.2f %12.1f\n", name, wall, wall / n.seconds, cpu,
                n.cpu > 0 ? cpu / n.cpu : 0.0, rss_kb / 1024.0);
  };
  row("native", n.seconds, n.cpu, n.rss_kb);
  row("seer --sync=inproc: target", r.seconds, r.cpu, r.rss_kb);
  std::printf("%-34s %8.3f %9.2f %8.3f %9s %12.1f\n", "seer --sync=inproc: trace closed", r.total, r.total / n.seconds,
              r.recorder_cpu, "", r.recorder_rss_kb / 1024.0);
  row("ThreadSanitizer", t.seconds, t.cpu, t.rss_kb);
  // Goals: issue 5 for the shared shape, issue 14 for the private one.
  std::printf("seer target slowdown / tsan slowdown: wall %.2f, cpu %.2f (goal: <= %s)\n",
              (r.seconds / n.seconds) / (t.seconds / n.seconds), n.cpu > 0 ? (r.cpu / n.cpu) / (t.cpu / n.cpu) : 0.0,
              shape == "shared" ? "0.20" : "0.33");
  std::printf("(the 'trace closed' row: the recorder's own CPU time and peak RSS)\n");
  std::printf("seer trace closed / tsan run: wall %.2f (goal: <= 1)\n", r.total / t.seconds);
  std::printf("events %llu (accesses %llu), lost %llu\n", static_cast<unsigned long long>(r.events),
              static_cast<unsigned long long>(r.accesses), static_cast<unsigned long long>(r.lost));
  std::printf("trace %.1f MB: %.2f bytes per access, %.2f bytes per event\n", r.trace_bytes / 1048576.0,
              r.accesses ? static_cast<double>(r.trace_bytes) / r.accesses : 0.0,
              r.events ? static_cast<double>(r.trace_bytes) / r.events : 0.0);
  std::printf("recorded %.1f M events/s over the target's run, %.1f M events/s until the trace was closed%s\n",
              r.events / r.seconds / 1e6, r.events / r.total / 1e6, r.lost == 0 ? " (zero loss)" : " (WITH LOSS)");
  std::printf(
      "recorder: %.1f M events per CPU second (collect, merge, encode, write); %.1f M per user CPU "
      "second (system time %.2f s)\n",
      r.recorder_cpu > 0 ? r.events / r.recorder_cpu / 1e6 : 0.0,
      r.recorder_cpu > r.recorder_sys ? r.events / (r.recorder_cpu - r.recorder_sys) / 1e6 : 0.0, r.recorder_sys);
  std::printf("spool peak %.1f MB (ring data copied out, not yet merged)\n", r.spool_peak / 1048576.0);
  if (HostTakesFreedMemory())
    std::printf(
        "note: this VM's balloon returns freed memory to its host (free page reporting): a recording's "
        "first touch of that memory costs system time here, and the target's wall time with it "
        "(bench/runtime/README.md)\n");
  return 0;
}
