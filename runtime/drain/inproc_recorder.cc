#include "runtime/drain/inproc_recorder.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <ctime>
#include <memory>
#include <set>
#include <thread>
#include <utility>

#include "runtime/drain/elf_symbols.h"
#include "runtime/drain/module_map.h"
#include "runtime/drain/ring_merger.h"
#include "runtime/ring_layout.h"

namespace seer {
namespace {

using Clock = std::chrono::steady_clock;

// How the trace orders events, for the `clock` metadata.
constexpr const char* kClockDescription =
    "inproc-seq: synchronisation events, atomics and alloc/free carry one global sequence number; "
    "plain accesses are exact in program order between their thread's ordered events, and ordered "
    "against other threads only through those events";

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

// The shared area: a memfd the target inherits, mapped here too.
class SharedArea {
 public:
  ~SharedArea() {
    if (base_ != nullptr) munmap(base_, bytes_);
    if (fd_ >= 0) close(fd_);
  }

  Status Create(const InprocOptions& o) {
    if (o.ring_words < 64 || (o.ring_words & (o.ring_words - 1)) != 0)
      return Status::InvalidArgument("ring size must be a power of two of at least 64 words, not " +
                                     std::to_string(o.ring_words));
    if (o.max_rings == 0) return Status::InvalidArgument("at least one ring is needed");
    bytes_ = rt::ShmBytes(o.max_rings, o.ring_words);
    // Not close-on-exec: the target inherits it. Pages exist only once touched.
    fd_ = memfd_create("seer-rt", 0);
    if (fd_ < 0) return Status::IOError(std::string("memfd_create: ") + std::strerror(errno));
    if (ftruncate(fd_, static_cast<off_t>(bytes_)) != 0)
      return Status::IOError(std::string("sizing the runtime's shared rings: ") + std::strerror(errno));
    void* p = mmap(nullptr, bytes_, PROT_READ | PROT_WRITE, MAP_SHARED, fd_, 0);
    if (p == MAP_FAILED) return Status::IOError(std::string("mapping the runtime's rings: ") + std::strerror(errno));
    base_ = p;
    auto* h = new (p) rt::ShmHeader();
    h->magic = rt::kShmMagic;
    h->version = rt::kShmVersion;
    h->max_rings = o.max_rings;
    h->ring_words = o.ring_words;
    h->wait_ns = o.wait_ns;
    h->ring_offset = rt::RingOffset(o.max_rings);
    for (uint32_t i = 0; i < o.max_rings; ++i) {
      auto* d = new (&rt::RingDescs(h)[i]) rt::RingDesc();
      d->parent = -1;
    }
    return Status::Ok();
  }

  int fd() const { return fd_; }
  rt::ShmHeader* header() const { return static_cast<rt::ShmHeader*>(base_); }

 private:
  int fd_ = -1;
  void* base_ = nullptr;
  size_t bytes_ = 0;
};

// Starts argv with the ring descriptor in its environment. Exec failures come
// back through a close-on-exec pipe, so "no such program" is an error here.
Status Launch(const std::vector<std::string>& argv, const SharedArea& area, bool sync_inproc, pid_t* pid) {
  int pipefd[2];
  if (pipe2(pipefd, O_CLOEXEC) != 0) return Status::IOError(std::string("pipe: ") + std::strerror(errno));
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  const std::string fd_text = std::to_string(area.fd());
  const pid_t child = fork();
  if (child < 0) return Status::IOError(std::string("fork: ") + std::strerror(errno));
  if (child == 0) {
    close(pipefd[0]);
    setenv(rt::kShmFdEnv, fd_text.c_str(), 1);
    setenv(rt::kSyncEnv, sync_inproc ? "inproc" : "ebpf", 1);
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

}  // namespace

bool CarriesRuntime(const std::string& path) { return HasDefinedSymbol(path, rt::kRuntimeMarkerSymbol); }

Status RecordInproc(const std::vector<std::string>& argv, const InprocOptions& options,
                    const std::string& out_path, InprocResult* result) {
  *result = InprocResult();
  if (argv.empty()) return Status::InvalidArgument("no program to record");
  SharedArea area;
  Status s = area.Create(options);
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
  RingMerger merger(shm);
  auto sink = [&](const Event& e) { return writer->Append(e); };
  std::set<std::pair<std::string, uint64_t>> modules_seen;
  auto read_modules = [&]() {
    std::vector<ModuleInfo> modules;
    if (!ReadModules(pid, &modules).ok()) return;
    for (const auto& m : modules)
      if (modules_seen.insert({m.path, m.base}).second) writer->AddModule(m);
  };

  // Drain while the target runs; rest briefly only when a round found nothing.
  int status = 0;
  struct rusage usage = {};
  auto last_modules = Clock::time_point();
  for (;;) {
    const pid_t w = wait4(pid, &status, WNOHANG, &usage);
    if (w == pid) break;
    if (w < 0 && errno != EINTR) return Status::IOError(std::string("waiting for the target: ") + std::strerror(errno));
    if (shm->owner_pid.load() != 0 && Clock::now() - last_modules > std::chrono::milliseconds(200)) {
      read_modules();  // again now and then: dlopen'ed libraries appear later
      last_modules = Clock::now();
    }
    uint64_t n = 0;
    s = merger.Drain(false, sink, &n);
    if (!s.ok()) {
      // A damaged ring or a failing disk: stop the target rather than record garbage.
      kill(pid, SIGKILL);
      waitpid(pid, nullptr, 0);
      return s;
    }
    if (n < 1024) std::this_thread::sleep_for(std::chrono::microseconds(500));
  }
  const auto exited = Clock::now();
  s = merger.Drain(true, sink);
  if (!s.ok()) return s;

  for (const ThreadInfo& t : merger.Threads()) writer->AddThread(t);
  const std::vector<uint64_t> lost = merger.LostByKind();
  for (int k = 0; k < kNumEventKinds; ++k) {
    if (lost[k] == 0) continue;
    writer->AddLost("runtime-ring", static_cast<EventKind>(k), lost[k]);
    result->lost += lost[k];
  }
  // A thread without a ring loses all its events; the count is of threads.
  if (const uint64_t n = merger.ThreadsWithoutRing(); n > 0)
    writer->AddLost("runtime-no-ring", EventKind::kThreadBegin, n);
  if (const uint32_t sig = shm->fatal_signal.load(); sig != 0)
    writer->SetMeta("fatal_signal", std::to_string(sig));
  writer->SetMeta(meta::kEndTime, IsoNow());
  result->events = writer->events_written();
  result->threads = static_cast<uint32_t>(merger.Threads().size());
  s = writer->Close();
  if (!s.ok()) return s;

  result->runtime_seen = shm->owner_pid.load() != 0;
  if (WIFEXITED(status)) result->exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) result->term_signal = WTERMSIG(status);
  result->wall_seconds = std::chrono::duration<double>(exited - start).count();
  result->drain_seconds = std::chrono::duration<double>(Clock::now() - exited).count();
  result->max_rss_kb = usage.ru_maxrss;
  return Status::Ok();
}

}  // namespace seer
