#include "runtime/drain/inproc_recorder.h"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <memory>
#include <set>
#include <thread>
#include <utility>

#include "runtime/drain/elf_symbols.h"
#include "runtime/drain/module_map.h"
#include "runtime/drain/ring_collector.h"
#include "runtime/drain/ring_merger.h"
#include "runtime/drain/shared_area.h"
#include "runtime/ring_layout.h"
#include "tools/common/async_writer.h"

namespace seer {
namespace {

using Clock = std::chrono::steady_clock;

// How the trace orders events, for the `clock` metadata.
constexpr const char* kClockDescription =
    "inproc-domains: each lock's acquire/release, each atomic address's operations and the global "
    "events (thread lifecycle, signal/wait, barriers, alloc/free) are numbered exactly in the order "
    "they took effect, per order domain; plain accesses are exact in program order between their "
    "thread's ordered events, and ordered against other threads only through those events";

std::string IsoNow() {
  char buf[32];
  const std::time_t t = std::time(nullptr);
  std::tm tm;
  gmtime_r(&t, &tm);
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

std::string JoinArgs(const std::vector<std::string>& argv) {
  std::string s;
  for (const auto& a : argv) {
    if (!s.empty()) s += ' ';
    s += a;
  }
  return s;
}

// Starts argv with the ring descriptor in its environment. Exec failures come
// back through a close-on-exec pipe, so "no such program" is an error here.
Status Launch(const std::vector<std::string>& argv, const SharedArea& area, bool sync_inproc, pid_t* pid) {
  int pipefd[2];
  if (pipe2(pipefd, O_CLOEXEC) != 0) return Status::IOError(std::string("pipe: ") + std::strerror(errno));
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  const pid_t child = fork();
  if (child < 0) return Status::IOError(std::string("fork: ") + std::strerror(errno));
  if (child == 0) {
    close(pipefd[0]);
    area.ExportToChild(sync_inproc);
    execvp(args[0], args.data());
    const int err = errno;
    ssize_t ignored = write(pipefd[1], &err, sizeof err);
    (void)ignored;
    _exit(127);
  }
  close(pipefd[1]);
  int err = 0;
  ssize_t n;
  do {
    n = read(pipefd[0], &err, sizeof err);
  } while (n < 0 && errno == EINTR);
  close(pipefd[0]);
  if (n == static_cast<ssize_t>(sizeof err)) {
    waitpid(child, nullptr, 0);
    return Status::NotFound("cannot run " + argv[0] + ": " + std::strerror(err));
  }
  *pid = child;
  return Status::Ok();
}

// Batches from the collector (the recording thread) to the merger thread.
struct SpoolItem {
  RingBatch batch;
  std::vector<ModuleInfo> modules;
};

class SpoolQueue {
 public:
  void Push(SpoolItem item) {
    std::lock_guard<std::mutex> lock(mu_);
    bytes_ += item.batch.bytes();
    peak_ = std::max(peak_, bytes_);
    items_.push_back(std::move(item));
    cv_.notify_one();
  }
  // False once closed and empty, or failed.
  bool Pop(SpoolItem* out) {
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait(lock, [&] { return !items_.empty() || closed_ || failed_; });
    if (failed_ || items_.empty()) return false;
    *out = std::move(items_.front());
    items_.pop_front();
    bytes_ -= out->batch.bytes();
    return true;
  }
  void Close() {
    std::lock_guard<std::mutex> lock(mu_);
    closed_ = true;
    cv_.notify_all();
  }
  void Fail() {
    std::lock_guard<std::mutex> lock(mu_);
    failed_ = true;
    cv_.notify_all();
  }
  uint64_t bytes() {
    std::lock_guard<std::mutex> lock(mu_);
    return bytes_;
  }
  bool failed() {
    std::lock_guard<std::mutex> lock(mu_);
    return failed_;
  }
  uint64_t peak() {
    std::lock_guard<std::mutex> lock(mu_);
    return peak_;
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<SpoolItem> items_;
  uint64_t bytes_ = 0;
  uint64_t peak_ = 0;
  bool closed_ = false;
  bool failed_ = false;
};

// The threads of this process now, by kernel tid.
std::set<pid_t> Tasks() {
  std::set<pid_t> tids;
  if (DIR* dir = opendir("/proc/self/task")) {
    while (const dirent* entry = readdir(dir))
      if (const long tid = std::strtol(entry->d_name, nullptr, 10); tid > 0) tids.insert(static_cast<pid_t>(tid));
    closedir(dir);
  }
  return tids;
}

// Puts the threads RecordInproc started (every thread but the calling one and
// those in `others`: the merger and the writer it started) under SCHED_IDLE, or
// back to SCHED_OTHER at nice 0. Best effort: leaving SCHED_IDLE needs
// CAP_SYS_NICE or an RLIMIT_NICE allowance (root has both); without, they stay
// idle threads, slower on a busy machine but never wrong.
void SetDrainPriority(bool idle, const std::set<pid_t>& others) {
  const pid_t self = gettid();
  for (const pid_t tid : Tasks()) {
    if (tid == self || others.count(tid) != 0) continue;
    sched_param param = {};
    sched_setscheduler(tid, idle ? SCHED_IDLE : SCHED_OTHER, &param);
    if (!idle) setpriority(PRIO_PROCESS, static_cast<id_t>(tid), 0);
  }
}

}  // namespace

uint64_t DefaultSpoolBytes() {
  constexpr uint64_t kMin = 256ull << 20, kMax = 4ull << 30;
  uint64_t available_kb = 0;
  if (FILE* f = fopen("/proc/meminfo", "r")) {
    char line[128];
    while (fgets(line, sizeof line, f) != nullptr)
      if (sscanf(line, "MemAvailable: %lu kB", &available_kb) == 1) break;
    fclose(f);
  }
  if (available_kb == 0) return 1ull << 30;
  return std::clamp<uint64_t>(available_kb * 1024 / 4, kMin, kMax);
}

bool CarriesRuntime(const std::string& path) {
  if (path.find('/') != std::string::npos) return HasDefinedSymbol(path, rt::kRuntimeMarkerSymbol);
  const char* env = getenv("PATH");
  std::string dirs = env != nullptr ? env : "/usr/local/bin:/usr/bin:/bin";
  size_t start = 0;
  while (start <= dirs.size()) {
    size_t end = dirs.find(':', start);
    if (end == std::string::npos) end = dirs.size();
    const std::string dir = end > start ? dirs.substr(start, end - start) : ".";
    const std::string candidate = dir + "/" + path;
    if (access(candidate.c_str(), X_OK) == 0) return HasDefinedSymbol(candidate, rt::kRuntimeMarkerSymbol);
    start = end + 1;
  }
  return false;
}

Status RecordInproc(const std::vector<std::string>& argv, const InprocOptions& options,
                    const std::string& out_path, InprocResult* result) {
  *result = InprocResult();
  if (argv.empty()) return Status::InvalidArgument("no program to record");
  SharedArea area;
  Status s = area.Create({options.max_rings, options.ring_words, options.wait_ns});
  if (!s.ok()) return s;
  std::unique_ptr<TraceWriter> writer;
  s = TraceWriter::Create(out_path, options.writer, &writer);
  if (!s.ok()) return s;

  struct utsname un;
  uname(&un);
  writer->SetMeta(meta::kSource, "record");
  writer->SetMeta(meta::kCommandLine, JoinArgs(argv));
  writer->SetMeta(meta::kHost, un.nodename);
  writer->SetMeta(meta::kKernel, un.release);
  writer->SetMeta(meta::kStartTime, IsoNow());
  writer->SetMeta(meta::kClock, kClockDescription);
  writer->SetMeta(meta::kPcKind, "address");
  writer->SetMeta("sync", options.sync_inproc ? "inproc" : "ebpf");

  const auto start = Clock::now();
  pid_t pid = -1;
  s = Launch(argv, area, options.sync_inproc, &pid);
  if (!s.ok()) return s;

  rt::ShmHeader* shm = area.header();
  RingCollector collector(shm);
  RingMerger merger(shm);
  SpoolQueue queue;

  // The merger thread orders and encodes what the collector copied out. It runs
  // at a lower priority than the target so that recording steals little CPU
  // from it; the spool (bounded) absorbs the difference and drains at the end.
  // Encoding and compressing (the writer) run in a thread of their own, so
  // that once the target has exited merging and encoding overlap on two cores.
  // The merge thread creates it, so that it inherits the lower priority.
  Status merge_status;
  std::unique_ptr<AsyncTraceWriter> async;
  const uint64_t max_spool = options.max_spool_bytes != 0 ? options.max_spool_bytes : DefaultSpoolBytes();
  const std::set<pid_t> callers_threads = Tasks();
  bool drain_idle = options.merge_when_idle;
  std::thread merge_thread([&, start_idle = drain_idle] {
    if (start_idle) {
      sched_param param = {};
      sched_setscheduler(0, SCHED_IDLE, &param);  // the writer thread started below inherits it
    }
    async = std::make_unique<AsyncTraceWriter>(writer.get());
    auto sink = [&](const Event& e) { return async->Append(e); };
    SpoolItem item;
    while (queue.Pop(&item)) {
      for (const ModuleInfo& m : item.modules) async->AddModule(m);
      Status st = merger.Add(&item.batch, sink);
      if (!st.ok()) {
        merge_status = st;
        queue.Fail();
        return;
      }
    }
  });

  std::set<std::pair<std::string, uint64_t>> modules_seen;
  auto new_modules = [&](std::vector<ModuleInfo>* out) {
    std::vector<ModuleInfo> modules;
    if (!ReadModules(pid, &modules).ok()) return;
    for (auto& m : modules)
      if (modules_seen.insert({m.path, m.base}).second) out->push_back(std::move(m));
  };

  // Collect while the target runs; rest briefly when a round found little.
  int status = 0;
  struct rusage usage = {};
  auto last_modules = Clock::time_point();
  bool target_alive = true;
  while (target_alive) {
    const pid_t w = wait4(pid, &status, WNOHANG, &usage);
    if (w == pid) target_alive = false;
    if (w < 0 && errno != EINTR) {
      kill(pid, SIGKILL);
      waitpid(pid, &status, 0);
      target_alive = false;
    }
    if (queue.failed()) {
      // A damaged ring or a failing disk: stop the target rather than record garbage.
      kill(pid, SIGKILL);
      waitpid(pid, &status, 0);
      break;
    }
    SpoolItem item;
    if (target_alive && shm->owner_pid.load() != 0 &&
        (shm->modules_read.load() == 0 || Clock::now() - last_modules > std::chrono::milliseconds(200))) {
      new_modules(&item.modules);  // again now and then: dlopen'ed libraries appear later
      last_modules = Clock::now();
      shm->modules_read.store(1, std::memory_order_release);
    }
    // A filling spool: the merger gets normal priority until it has caught up.
    const uint64_t spooled = queue.bytes();
    const bool want_idle = spooled < (drain_idle ? max_spool / 4 * 3 : max_spool / 4);
    if (options.merge_when_idle && target_alive && want_idle != drain_idle) {
      drain_idle = want_idle;
      SetDrainPriority(drain_idle, callers_threads);
    }
    // Over the spool limit: stop copying; the rings fill and the target waits.
    if (target_alive && spooled > max_spool) {
      std::this_thread::sleep_for(std::chrono::microseconds(500));
      continue;
    }
    const bool copied = collector.Collect(!target_alive, &item.batch);
    const uint64_t bytes = item.batch.bytes();
    if (copied || !item.modules.empty()) queue.Push(std::move(item));
    if (target_alive && bytes < (64u << 10)) std::this_thread::sleep_for(std::chrono::microseconds(300));
  }
  const auto exited = Clock::now();
  if (drain_idle) SetDrainPriority(false, callers_threads);  // the target is gone: close the trace at full speed
  queue.Close();
  merge_thread.join();
  if (!merge_status.ok()) return merge_status;
  // From here on only this thread uses the writer, through the async one (which
  // keeps the table calls in order with the events it still holds).
  TraceWriter* out = async.get();

  for (const ThreadInfo& t : merger.Threads()) out->AddThread(t);
  const std::vector<uint64_t> lost = merger.LostByKind();
  for (int k = 0; k < kNumEventKinds; ++k) {
    if (lost[k] == 0) continue;
    out->AddLost("runtime-ring", static_cast<EventKind>(k), lost[k]);
    result->lost += lost[k];
  }
  // A thread without a ring loses all its events; the count is of threads.
  if (const uint64_t n = merger.ThreadsWithoutRing(); n > 0)
    out->AddLost("runtime-no-ring", EventKind::kThreadBegin, n);
  // Numbers taken by a thread that died before publishing its record.
  if (const uint64_t gaps = merger.order_gaps(); gaps > 0) out->SetMeta("order_gaps", std::to_string(gaps));
  if (const uint32_t sig = shm->fatal_signal.load(); sig != 0)
    out->SetMeta("fatal_signal", std::to_string(sig));
  out->SetMeta(meta::kEndTime, IsoNow());
  result->events = out->events_written();
  result->threads = static_cast<uint32_t>(merger.Threads().size());
  s = out->Close();
  if (!s.ok()) return s;

  result->runtime_seen = shm->owner_pid.load() != 0;
  if (WIFEXITED(status)) result->exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) result->term_signal = WTERMSIG(status);
  result->wall_seconds = std::chrono::duration<double>(exited - start).count();
  result->drain_seconds = std::chrono::duration<double>(Clock::now() - exited).count();
  result->max_rss_kb = usage.ru_maxrss;
  result->target_cpu_seconds = static_cast<double>(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) +
                               static_cast<double>(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6;
  result->spool_peak_bytes = queue.peak();
  return Status::Ok();
}

}  // namespace seer
