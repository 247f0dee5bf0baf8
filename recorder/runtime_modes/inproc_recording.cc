// The in-process recordings (kInproc, kPreload, kInject): a collector loop
// (Poll) copies the rings out into a bounded spool at a pace it sets, a merge
// thread orders and encodes (merge_thread.h), writer threads compress.
#include "recorder/runtime_modes/inproc_recording.h"

#include <dirent.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <set>
#include <thread>
#include <utility>

#include "recorder/ebpf/futex_events.h"
#include "recorder/elf_file.h"
#include "recorder/launch.h"
#include "recorder/merge/merge_priority.h"
#include "recorder/merge/ring_collector.h"
#include "recorder/merge/ring_merger.h"
#include "recorder/proc_maps.h"
#include "recorder/rings/shared_area.h"
#include "recorder/runtime_modes/injected_runtime.h"
#include "recorder/runtime_modes/merge_thread.h"
#include "recorder/runtime_modes/spool_queue.h"
#include "recorder/runtime_modes/watch_summary.h"
#include "recorder/trace_metadata.h"
#include "seer/ring_layout.h"

namespace seer::recorder {
namespace {

using Clock = std::chrono::steady_clock;

// How the trace orders events, for the `clock` metadata.
constexpr const char* kClockDescription =
    "inproc-domains: each lock's acquire/release, each atomic address's operations and the global "
    "events (thread lifecycle, signal/wait, barriers, alloc/free) are numbered exactly in the order "
    "they took effect, per order domain; plain accesses are exact in program order between their "
    "thread's ordered events, and ordered against other threads only through those events";

std::string JoinArgs(const std::vector<std::string>& argv) {
  std::string s;
  for (const auto& a : argv) {
    if (!s.empty()) s += ' ';
    s += a;
  }
  return s;
}

// What the runtime cannot see from inside: futex system calls that bypass
// both the pthread and semaphore functions and libc's syscall()
// (the trace's record.not_seen, which `seer info` shows: the summary does not,
// since most programs make no such call and the line would be noise).
constexpr const char* kNotSeen =
    "raw futex syscalls issued without libc's syscall() (the instruction in the program's own code): their "
    "wake-to-wait edges are not in the trace; --futex-tracepoints (root) adds them";
// Where the raw futex syscalls in the trace come from (meta record.futex):
// always the runtime's interposer, then what the tracepoints add or why they
// are not there.
constexpr const char* kFutexByRuntime = "raw futex syscalls through libc's syscall(), from the runtime's interposer";

// Starts argv with the ring descriptor in its environment (and, for kPreload,
// the runtime in LD_PRELOAD after the user's own entries). The child waits
// before exec until `before_exec(child)` has run in the parent (it loads the
// futex tracepoints for the child's pid); when that fails the child ends
// without exec and its error is returned.
Status LaunchWithRings(const std::vector<std::string>& argv, const SharedArea& area, const std::string& preload,
                       const std::string& children_socket, const std::function<Status(pid_t)>& before_exec,
                       pid_t* pid) {
  LaunchOptions options;
  options.argv = argv;
  if (!preload.empty()) options.env.emplace_back("LD_PRELOAD", PreloadWith(getenv("LD_PRELOAD"), preload));
  if (!children_socket.empty()) options.env.emplace_back(rt::kChildrenEnv, children_socket);
  // The go-ahead byte says whether the futex tracepoints stamp the child's records.
  options.in_child = [&area](char futex) { area.ExportToChild(/*sync_inproc=*/true, /*futex_stamps=*/futex == '1'); };
  Launch launch;
  Status st = launch.Start(options);
  if (!st.ok()) return st;
  st = before_exec ? before_exec(launch.pid()) : Status::Ok();
  if (!st.ok()) return st;  // the launch ends the child without exec
  st = launch.Release(before_exec ? '1' : '0');
  if (!st.ok()) return st;
  *pid = launch.pid();
  return Status::Ok();
}

// How long after a pause the collector copies the rings for the drain mark:
// time for every running thread to reach its next hook, see the pause and
// publish what it wrote before (rt_state.h, PausedThread), and for a thread
// that was inside a hook to finish its record.
constexpr auto kPauseGrace = std::chrono::milliseconds(10);
// How long the collector rests between rounds in a drained pause (CollectOnce).
constexpr auto kQuietPauseRest = std::chrono::milliseconds(20);
// Otherwise a round that copied less than kRoundBytes is followed by a rest
// meant to let the next find about that much, between kMinRest and kMaxRest
// (CollectOnce). The collector runs at normal priority: each of its wakeups
// preempts the target on a busy machine, and with a fixed 300 us rest a
// memcached under load woke it 3,000 times a second (perf: the context switch
// took a quarter of the collector's samples). A ring holds 4 MiB, so even a
// thread writing 1 GB/s fills half of it in the longest rest.
constexpr uint64_t kRoundBytes = 128u << 10;
constexpr auto kMinRest = std::chrono::microseconds(300);
constexpr auto kMaxRest = std::chrono::microseconds(2000);
// The longest a batch waits in the spool while the merger is at idle priority
// (CollectOnce); back at idle once the oldest has waited less than a quarter of it.
constexpr auto kIdleDeferral = std::chrono::seconds(2);

class InprocRecording final : public Recording {
 public:
  explicit InprocRecording(const RecordOptions& options)
      : options_(options), opts_(options.inproc), preload_(options.mode == RecordMode::kPreload) {
    const char* repeat_env = getenv("SEER_REPEAT_RUNS");
    repeat_runs_ = opts_.repeat_runs && !(repeat_env != nullptr && std::string(repeat_env) == "0");
  }
  ~InprocRecording() override;

  Status Begin();
  // A process of the family (StartChildRecording): the area, the trace, and the area handed over.
  Status BeginChild(const ChildProcess& child);
  // kInject: loads the runtime into the running process options_.pid.
  Status AttachByInjection(const std::string& library, const std::function<Status(pid_t)>& load_futex);
  // kInject: the process still runs (not ended, not a zombie).
  bool AttachedAlive() const;
  // kInject, at the end: puts the process's calls back, collects what is left.
  void DetachInjected();
  Status Poll(bool* running) override;
  void Stop() override;
  Status Finish(RecordResult* result) override;
  RecordCounters counters() const override;
  bool SetPaused(bool paused) override;
  bool PauseDrained() const override;
  void AddEndMeta(const std::string& key, const std::string& value) override { end_meta_.emplace_back(key, value); }
  pid_t target_pid() const override { return pid_ > 0 ? pid_ : 0; }

 private:
  // Finds header_in_target_; false when the target's maps do not show the area.
  bool LocateHeaderInTarget();
  // The shared area: the rings are reused (RingMerger::ReuseRings).
  SharedAreaOptions AreaOptions() const {
    return {opts_.max_rings,
            opts_.ring_words,
            opts_.wait_ns,
            rt::kOptionReuseRings | (opts_.lock_hold_times ? rt::kOptionHoldTimes : 0u) |
                (repeat_runs_ && !LetGo() ? rt::kOptionRepeatMarks : 0u) |
                (opts_.sync_none ? rt::kOptionWatchOnly : 0u),
            opts_.watch_period,
            opts_.watch_delay_us,
            opts_.watch_budget_permille};
  }
  // The collector, merger and merge thread, once the area is the target's.
  Status StartMerging();
  // pidfd_ for pid_, a process that is not seer's child (kInject, child_).
  Status OpenPidfd();
  // The metadata every in-process trace starts with.
  void WriteStartMeta(const std::string& command_line);
  void NewModules(std::vector<ModuleInfo>* out);
  void CollectOnce();
  // Nanoseconds since the recording started (start_): SpoolItem::copied_ns's clock.
  uint64_t SinceStartNs() const {
    return static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - start_).count());
  }
  Status CloseTrace();

  const RecordOptions options_;
  const InprocOptions opts_;
  SharedArea area_;
  std::unique_ptr<TraceWriter> writer_;
  std::unique_ptr<RingCollector> collector_;
  std::unique_ptr<RingMerger> merger_;
  SpoolQueue queue_;
  // The merge thread orders and encodes what the collector copied out. It runs
  // at a lower priority than the target so that recording steals little CPU
  // from it; the spool (bounded) absorbs the difference and drains at the end.
  // Encoding and compressing run on threads of their own, so that once the
  // target has exited merging and encoding overlap on two cores: the trace
  // writer's encoder threads (opts_.writer.encode_threads), or, for a writer
  // that cannot take runs of events (the service's windows), an
  // AsyncTraceWriter in front of it. The merge thread creates them, so that
  // they inherit its lower priority.
  std::unique_ptr<MergeThread> merge_thread_;
  uint64_t max_spool_ = 0;
  std::set<pid_t> callers_threads_;
  bool drain_idle_ = false;
  int idle_nice_ = -1;  // InprocOptions::idle_nice
  std::set<std::pair<std::string, uint64_t>> modules_seen_;
  Clock::time_point start_;
  Clock::time_point exited_;
  Clock::time_point last_modules_;
  std::chrono::microseconds rest_ = kMinRest;  // CollectOnce's last rest
  pid_t pid_ = -1;
  int status_ = 0;
  struct rusage usage_ = {};
  bool target_alive_ = true;
  bool finished_ = false;
  bool preload_ = false;  // kPreload: the runtime came in through LD_PRELOAD
  // kInject: the runtime loaded into a running process, which is never killed
  // or waited for; the recording ends at --duration, Stop or its exit.
  bool attached_ = false;
  // A process of a launched recording's family (StartChildRecording): watched
  // through pidfd_, merged as an attached one.
  bool child_ = false;
  // A child_ forked by a process recorded by injection (kInject): its rings
  // are behind an attach page of seer's (InjectedRuntime::FollowChild). Like
  // the injected process it is never killed: the end of the recording
  // detaches it (Stop, Finish), and it runs on unrecorded.
  bool injected_child_ = false;
  // The process is let go at the end (detached, its calls put back), never
  // killed: one attached by injection, or a child such a process forked.
  bool LetGo() const { return attached_ || injected_child_; }
  // InprocOptions::repeat_runs; SEER_REPEAT_RUNS=0 in the environment turns it
  // off (for benchmarks that compare, in one build).
  bool repeat_runs_ = true;
  std::atomic<bool> stop_requested_{false};
  InjectedRuntime injected_;
  std::string detach_note_;                                    // why the calls may not have been put back
  std::vector<std::pair<std::string, std::string>> end_meta_;  // AddEndMeta
  bool detached_ = false;
  int pidfd_ = -1;  // kInject, child_: readable once the process has ended (zombie included)
  // kPreload with the privileges: raw futex syscalls from the eBPF tracepoints.
  std::unique_ptr<FutexEvents> futex_;
  std::string futex_note_;         // why the tracepoints stopped, when they failed during the recording
  std::string raw_syscalls_note_;  // the futex tracepoints are the raw ones: why (RecordResult)
  uint64_t header_in_target_ = 0;  // where the target maps area_'s header (0: not looked up yet)
  // The duty cycle (SetPaused): the pauses asked so far and the last one the
  // collector sent a drain mark for (the merge thread tells the last one whose
  // mark it has handed on).
  bool paused_ = false;
  uint64_t pause_epoch_ = 0;
  uint64_t pause_marked_ = 0;
  Clock::time_point paused_at_;
};

InprocRecording::~InprocRecording() {
  // Finish was never called: leave nothing behind. Only a program seer
  // launched is killed: a process of its family whose recording did not begin
  // runs on unrecorded (an injected child is let go by injected_).
  if (!finished_ && target_alive_ && pid_ > 0 && !LetGo() && !child_) {
    kill(pid_, SIGKILL);
    waitpid(pid_, nullptr, 0);
  }
  merge_thread_.reset();  // fails the spool and waits, if still running
  if (pidfd_ >= 0) close(pidfd_);
}

Status InprocRecording::Begin() {
  const std::vector<std::string>& argv = options_.command;
  if (argv.empty() && options_.pid <= 0) return Status::InvalidArgument("no program to record");
  attached_ = options_.mode == RecordMode::kInject;
  if (attached_ != (options_.pid > 0))
    return Status::InvalidArgument(attached_ ? "attach by injection needs a running process (-p PID)"
                                             : "in-process recording needs a command to run, not a running process");
  std::string library;
  if (attached_) {
    if (const std::string why = InjectedRuntime::WhyNotInjectable(options_.pid); !why.empty())
      return Status::InvalidArgument(why);
  }
  if (preload_ || attached_) {
    // LD_PRELOAD is honoured by the dynamic loader only: a static program would
    // run unrecorded, and say nothing.
    if (preload_ && !IsDynamicExecutable(argv[0]))
      return Status::InvalidArgument(argv[0] +
                                     " is not a dynamically linked program: the runtime cannot be "
                                     "preloaded into it; record it with --sync=ebpf");
    library = opts_.runtime_library;
    if (library.empty()) {
      Status found = FindRuntimeLibrary(&library);
      if (!found.ok()) return found;
    }
  }
  if (opts_.futex_tracepoints && !CheckRecordPrivileges().ok())
    return Status::Permission(
        "--futex-tracepoints needs root or CAP_BPF and CAP_PERFMON (the runtime alone "
        "needs neither)");
  Status s = attached_ ? Status::Ok() : area_.Create(AreaOptions());
  if (!s.ok()) return s;
  s = OpenRecordingWriter(options_, opts_.writer, &writer_);
  if (!s.ok()) return s;

  WriteStartMeta(attached_ ? "attach to process " + std::to_string(options_.pid) : JoinArgs(argv));
  if (preload_ || attached_) writer_->SetMeta("record.runtime_library", library);

  start_ = Clock::now();
  // Raw futex syscalls through libc's syscall() are the runtime's
  // (runtime/interpose_futex.cc). When asked, the eBPF tracepoints (no uprobe)
  // add those the program issues itself, loaded for the child's pid before it
  // execs. Asked for and not loaded, they stop the recording before the
  // program runs: a trace without the edges the user asked for is not one to
  // find out about afterwards.
  std::function<Status(pid_t)> before_exec;
  if (opts_.futex_tracepoints) {
    before_exec = [this](pid_t child) {
      futex_ = std::make_unique<FutexEvents>();
      Status st = futex_->Open(child, options_.ebpf.ringbuf_bytes);
      if (st.ok()) return st;
      futex_.reset();
      return st.WithContext("--futex-tracepoints: the futex tracepoints could not be loaded");
    };
  }
  s = attached_ ? AttachByInjection(library, before_exec)
                : LaunchWithRings(argv, area_, library, opts_.children_socket, before_exec, &pid_);
  if (!s.ok()) return s;
  if (!attached_) writer_->SetMeta("record.pid", std::to_string(pid_));
  if (futex_) {
    writer_->SetMeta("record.tracefs", futex_->tracefs_note());
    writer_->SetMeta("record.syscall_tracepoints", futex_->raw_syscall_tracepoints() ? "raw" : "per-syscall");
    if (futex_->raw_syscall_tracepoints()) raw_syscalls_note_ = futex_->tracefs_note();
    writer_->SetMeta("record.not_seen", "");
    writer_->SetMeta("record.futex", std::string(kFutexByRuntime) +
                                         "; the others from the eBPF tracepoints (no uprobe), placed by the stamps "
                                         "they read from each thread's record counter");
  }

  return StartMerging();
}

void InprocRecording::WriteStartMeta(const std::string& command_line) {
  WriteRecordingStart(writer_.get());
  writer_->SetMeta(meta::kCommandLine, command_line);
  writer_->SetMeta(meta::kClock, kClockDescription);
  writer_->SetMeta(meta::kPcKind, "address");
  writer_->SetMeta("sync", "inproc");  // the runtime records synchronisation (kPreload too)
  writer_->SetMeta("record.sync", std::string(RecordModeName(options_.mode)));
  writer_->SetMeta("record.uprobes", "0");
  writer_->SetMeta("record.not_seen", kNotSeen);
  writer_->SetMeta("record.futex", kFutexByRuntime);
}

Status InprocRecording::BeginChild(const ChildProcess& child) {
  child_ = true;
  pid_ = child.pid;
  Status s = OpenPidfd();
  if (!s.ok()) return kill(pid_, 0) != 0 && errno == ESRCH ? Status::NotFound(kEndedWhileAsking) : s;
  injected_child_ = options_.mode == RecordMode::kInject;
  s = injected_child_ ? injected_.FollowChild(pid_, AreaOptions(), opts_.children_socket, &area_)
                      : area_.Create(AreaOptions());
  if (!s.ok()) return s;
  s = OpenRecordingWriter(options_, opts_.writer, &writer_);
  if (!s.ok()) return s;
  WriteStartMeta(ProcessCommandLine(pid_));
  writer_->SetMeta("record.pid", std::to_string(pid_));
  writer_->SetMeta("record.process", std::string(child.forked ? "forked by process " : "exec'd; parent process ") +
                                         std::to_string(child.parent));
  start_ = Clock::now();
  // The module map now, from the process that asked: its mappings at the fork
  // (or after its libraries loaded), so that it need not wait for the
  // collector's first round before it goes on (rt_state.cc, WaitForModuleMap).
  SpoolItem first;
  NewModules(&first.modules);
  last_modules_ = Clock::now();
  area_.header()->modules_read.store(1, std::memory_order_release);
  s = child.give_area(area_.fd());
  if (!s.ok()) {
    // Nothing was recorded, and no trace is left. A process that ended while
    // it asked (its answer had nowhere to go) is named for that, not for the
    // failed send.
    writer_.reset();
    if (!options_.open_writer) unlink(options_.output.c_str());
    if (!AttachedAlive()) return Status::NotFound(kEndedWhileAsking);
    return s;
  }
  s = StartMerging();
  if (s.ok() && !first.modules.empty()) queue_.Push(std::move(first));
  return s;
}

Status InprocRecording::OpenPidfd() {
  // Not seer's child: no wait4. A pidfd tells when it ends, at one poll per round.
  pidfd_ = static_cast<int>(syscall(SYS_pidfd_open, pid_, 0));
  if (pidfd_ < 0)
    return Status::IOError("cannot watch process " + std::to_string(pid_) + " (pidfd_open): " + strerror(errno));
  return Status::Ok();
}

Status InprocRecording::StartMerging() {
  rt::ShmHeader* shm = area_.header();
  collector_ = std::make_unique<RingCollector>(shm);
  merger_ = std::make_unique<RingMerger>(shm);
  merger_->ReuseRings();
  // Where the runtime marks repeated segments the merger does not look for them itself.
  merger_->DetectRepeats(repeat_runs_ && (LetGo() || futex_ != nullptr));
  max_spool_ = opts_.max_spool_bytes != 0 ? opts_.max_spool_bytes : DefaultSpoolBytes();
  callers_threads_ = Tasks();
  drain_idle_ = opts_.merge_when_idle;
  // SEER_MERGE_NICE: the background priority, for benchmarks that compare in one build.
  idle_nice_ = std::clamp(opts_.idle_nice, -1, 19);
  if (const char* nice_env = getenv("SEER_MERGE_NICE"); nice_env != nullptr && *nice_env != '\0')
    idle_nice_ = std::clamp(static_cast<int>(std::strtol(nice_env, nullptr, 10)), -1, 19);
  MergeThreadOptions merge;
  merge.start_idle = drain_idle_;
  merge.idle_nice = idle_nice_;
  merge.attached = attached_ || child_;
  merge.flush_interval_s = opts_.flush_interval_s;
  merge.writer_takes_runs = opts_.writer.encode_threads > 0;
  merge_thread_ = std::make_unique<MergeThread>(&queue_, merger_.get(), writer_.get(), merge);
  merge_thread_->Start();
  return Status::Ok();
}

void InprocRecording::NewModules(std::vector<ModuleInfo>* out) {
  std::vector<Mapping> maps;
  if (!ReadProcMaps(pid_, &maps).ok()) return;
  for (auto& m : ModulesFromMaps(maps))
    if (modules_seen_.insert({m.path, m.base}).second) out->push_back(std::move(m));
}

// One round of the collector while the target runs: its state, the module map
// now and then, the merger's priority, and the rings copied into the spool (the
// round that sees the target gone copies everything that is left).
void InprocRecording::CollectOnce() {
  rt::ShmHeader* shm = area_.header();
  const pid_t w = attached_ || child_ ? 0 : wait4(pid_, &status_, WNOHANG, &usage_);
  if (w == pid_ || (LetGo() && detached_) || ((attached_ || child_) && !AttachedAlive())) target_alive_ = false;
  if (w < 0 && errno != EINTR) {
    kill(pid_, SIGKILL);
    waitpid(pid_, &status_, 0);
    target_alive_ = false;
  }
  if (queue_.failed()) {
    // A damaged ring or a failing disk: stop the target rather than record garbage
    // (an attached one is let go, unharmed).
    if (target_alive_ && LetGo()) {
      DetachInjected();
      target_alive_ = false;
    } else if (target_alive_) {
      kill(pid_, SIGKILL);
      if (!child_) waitpid(pid_, &status_, 0);
      target_alive_ = false;
    }
    return;
  }
  SpoolItem item;
  if (target_alive_ && shm->owner_pid.load() != 0 &&
      (shm->modules_read.load() == 0 || Clock::now() - last_modules_ > std::chrono::milliseconds(200))) {
    NewModules(&item.modules);  // again now and then: dlopen'ed libraries appear later
    last_modules_ = Clock::now();
    shm->modules_read.store(1, std::memory_order_release);
  }
  // A filling spool: the merger gets normal priority until it has caught up.
  // So it does while a pause drains (SetPaused): the target records nothing
  // meanwhile, what is left to merge is bounded, and the service's window
  // waits for it.
  // So it does while threads wait for a ring to come back (they wait for the merger).
  // So it does when the oldest batch has waited kIdleDeferral: a target that
  // has kept every core busy that long leaves the idle merger nothing, and a
  // backlog deferred further only grows the spool arena into fresh pages,
  // which the kernel zeroes at the recorder's expense (perf: clear_page took a
  // tenth of a memcached recording's CPU while its spool grew to 380 MB).
  const uint64_t spooled = queue_.bytes();
  const bool draining = paused_ && merge_thread_->drained_mark() < pause_epoch_;
  const bool ring_wanted = shm->ring_waiters.load(std::memory_order_relaxed) != 0;
  const uint64_t oldest = queue_.oldest_copied_ns();
  const uint64_t now_ns = SinceStartNs();
  const auto waited = std::chrono::nanoseconds(oldest != 0 && now_ns > oldest ? now_ns - oldest : 0);
  const bool want_idle = !draining && !ring_wanted && spooled < (drain_idle_ ? max_spool_ / 4 * 3 : max_spool_ / 4) &&
                         waited < (drain_idle_ ? kIdleDeferral : kIdleDeferral / 4);
  if (opts_.merge_when_idle && target_alive_ && want_idle != drain_idle_) {
    drain_idle_ = want_idle;
    SetDrainPriority(drain_idle_, idle_nice_, callers_threads_);
  }
  // Over the spool limit: stop copying; the rings fill and the target waits.
  if (target_alive_ && spooled > max_spool_) {
    std::this_thread::sleep_for(std::chrono::microseconds(500));
    return;
  }
  // Paused a grace period ago: this copy holds the last records of the on period.
  if (paused_ && pause_marked_ < pause_epoch_ && Clock::now() - paused_at_ >= kPauseGrace) {
    item.drain_mark = pause_epoch_;
    pause_marked_ = pause_epoch_;
  }
  const bool copied = collector_->Collect(!target_alive_, &item.batch);
  item.copied_ns = SinceStartNs();
  // After the copy: every futex record placed before a copied word is in.
  if (futex_) {
    // The on period's last copy: the futex tracepoints go off for the pause
    // (FutexEvents::Suspend), what they recorded until then goes with it.
    if (item.drain_mark != 0 && LocateHeaderInTarget()) futex_->Suspend();
    Status st = futex_->Take(shm, &item.futex);
    if (!st.ok()) {
      futex_note_ = "the futex tracepoints failed: " + st.ToString();
      futex_.reset();
    }
  }
  const uint64_t bytes = item.batch.bytes();
  // A thread waiting for a ring (all are taken): the merger gives back those
  // of ended threads when it takes a batch, an empty one if need be.
  if (copied || !item.modules.empty() || !item.futex.empty() || item.batch.final || item.drain_mark != 0 || ring_wanted)
    queue_.Push(std::move(item));
  // Rest briefly when a round found little. Longer in a pause that has
  // drained: the runtime writes only thread starts and ends then, and a
  // wakeup every 300 us, each one preempting the target on a busy machine,
  // cost it a tenth of a CPU (the service's duty cycle is paused most of the time).
  if (target_alive_ && bytes < kRoundBytes) {
    const bool quiet = paused_ && PauseDrained() && !ring_wanted;
    // The target wrote `bytes` in about the last rest (and the round).
    const auto want = rest_ * static_cast<int64_t>(kRoundBytes) / static_cast<int64_t>(std::max<uint64_t>(bytes, 1));
    rest_ = ring_wanted ? kMinRest : std::clamp<std::chrono::microseconds>(want, kMinRest, kMaxRest);
    std::this_thread::sleep_for(quiet ? kQuietPauseRest : rest_);
  } else {
    rest_ = kMinRest;
  }
}

Status InprocRecording::AttachByInjection(const std::string& library, const std::function<Status(pid_t)>& load_futex) {
  pid_ = options_.pid;
  Status opened = OpenPidfd();
  if (!opened.ok()) return opened;
  // The futex tracepoints first, so that each thread's counter registration
  // (at its first recorded call) finds them.
  if (load_futex) {
    Status loaded = load_futex(pid_);
    if (!loaded.ok()) return loaded;
  }
  Status st =
      injected_.Inject(pid_, library, AreaOptions(), static_cast<bool>(load_futex), opts_.children_socket, &area_);
  if (!st.ok()) return st;
  writer_->SetMeta("record.pid", std::to_string(pid_));
  writer_->SetMeta("record.redirected_slots", std::to_string(injected_.slots()));
  writer_->SetMeta("record.redirected_modules", std::to_string(injected_.modules()));
  return Status::Ok();
}

bool InprocRecording::AttachedAlive() const {
  pollfd p = {pidfd_, POLLIN, 0};
  return poll(&p, 1, 0) == 0;  // readable (or an error): the process has ended
}

void InprocRecording::DetachInjected() {
  if (detached_) return;
  detached_ = true;
  // The runtime may wait up to 3 s for the watches to let go (runtime/watchpoints.h, WatchStop).
  Status st = injected_.Detach(std::chrono::seconds(opts_.watch_period != 0 ? 5 : 2));
  if (!st.ok()) detach_note_ = st.ToString();
}

Status InprocRecording::Poll(bool* running) {
  // An injected child's end is its family's (runtime_modes/process_family.cc): it stops when told.
  if (LetGo() && target_alive_ &&
      (stop_requested_.load() || (attached_ && options_.duration_s > 0 &&
                                  std::chrono::duration<double>(Clock::now() - start_).count() >= options_.duration_s)))
    DetachInjected();
  // A few rounds per call, so that a caller polling in a loop costs nothing extra.
  const auto until = Clock::now() + std::chrono::milliseconds(5);
  while (target_alive_ && Clock::now() < until) CollectOnce();
  if (!target_alive_ && exited_ == Clock::time_point()) exited_ = Clock::now();
  *running = target_alive_;
  return Status::Ok();  // a merge failure ends the recording too; Finish returns it
}

void InprocRecording::Stop() {
  if (LetGo()) {
    stop_requested_.store(true);  // the next Poll detaches; the process runs on
    return;
  }
  if (target_alive_ && pid_ > 0) kill(pid_, SIGTERM);  // pass it on; the target decides how to end
}

bool InprocRecording::LocateHeaderInTarget() {
  // Without it the tracepoints stay on through pauses: dearer, never wrong.
  if (header_in_target_ == 0 && !area_.HeaderAddressIn(pid_, &header_in_target_).ok()) return false;
  return true;
}

bool InprocRecording::SetPaused(bool paused) {
  if (area_.header() == nullptr || !target_alive_) return false;
  if (paused == paused_) return true;
  // The futex tracepoints first, so that the runtime's first records after
  // the pause have theirs.
  if (!paused && futex_ && futex_->suspended()) {
    Status st = futex_->Resume(area_.header(), header_in_target_);
    if (!st.ok()) {
      futex_note_ = "the futex tracepoints failed: " + st.ToString();
      futex_.reset();
    }
  }
  area_.SetPaused(paused);
  paused_ = paused;
  if (paused) {
    ++pause_epoch_;
    paused_at_ = Clock::now();
  }
  return true;
}

bool InprocRecording::PauseDrained() const { return !paused_ || merge_thread_->drained_mark() >= pause_epoch_; }

RecordCounters InprocRecording::counters() const {
  RecordCounters c;
  c.events = merge_thread_ != nullptr ? merge_thread_->merged_events() : 0;
  c.threads = area_.header() != nullptr ? area_.header()->claims.load(std::memory_order_relaxed) : 0;
  return c;
}

Status InprocRecording::CloseTrace() {
  if (drain_idle_)
    SetDrainPriority(false, idle_nice_, callers_threads_);  // the target is gone: close the trace at full speed
  queue_.Close();
  Status merged = merge_thread_->Join();
  if (!merged.ok()) return merged;
  // From here on only this thread uses the writer, through the async one if
  // there is one (which keeps the table calls in order with the events it
  // still holds).
  TraceWriter* out = merge_thread_->out();
  rt::ShmHeader* shm = area_.header();

  for (const ThreadInfo& t : merger_->Threads()) out->AddThread(t);
  const std::vector<uint64_t> lost = merger_->LostByKind();
  for (int k = 0; k < kNumEventKinds; ++k) {
    if (lost[k] == 0) continue;
    out->AddLost("runtime-ring", static_cast<EventKind>(k), lost[k]);
  }
  // A thread without a ring loses all its events; the count is of threads.
  if (const uint64_t n = merger_->ThreadsWithoutRing(); n > 0)
    out->AddLost("runtime-no-ring", EventKind::kThreadBegin, n);
  // Numbers taken by a thread that died before publishing its record.
  if (const uint64_t gaps = merger_->order_gaps(); gaps > 0) out->SetMeta("order_gaps", std::to_string(gaps));
  if (const uint32_t sig = shm->fatal_signal.load(); sig != 0) out->SetMeta("fatal_signal", std::to_string(sig));
  if (futex_) {
    const auto lost_bpf = futex_->Lost();
    for (int k = 0; k < SEER_EV_KIND_SLOTS && k < kNumEventKinds; ++k)
      if (lost_bpf[k] != 0) out->AddLost("bpf-ringbuf", static_cast<EventKind>(k), lost_bpf[k]);
    out->SetMeta("record.futex_events", std::to_string(futex_->kept()));
    out->SetMeta("record.futex_libc_internal_dropped", std::to_string(futex_->libc_internal()));
    out->SetMeta("record.futex_unplaced", std::to_string(futex_->unplaced()));
    out->SetMeta("record.futex_late", std::to_string(merger_->external_late()));
  } else if (!futex_note_.empty()) {
    out->SetMeta("record.futex", std::string(kFutexByRuntime) + "; " + futex_note_);
    out->SetMeta("record.not_seen", std::string(kNotSeen) + " (after " + futex_note_ + ")");
  }
  if (attached_ || child_) {
    out->SetMeta("record.unmatched_releases", std::to_string(merge_thread_->attach_filter().unmatched_releases()));
    out->SetMeta("record.frees_before_attach", std::to_string(merge_thread_->attach_filter().frees_before_attach()));
    if (!detach_note_.empty()) out->SetMeta("record.detach", detach_note_);
  }
  for (const auto& [key, value] : end_meta_) out->SetMeta(key, value);
  out->SetMeta("record.rings_returned", std::to_string(merger_->rings_returned()));
  if (const uint32_t forks = shm->forks_unrecorded.load(); forks > 0)
    out->SetMeta("record.forks_unrecorded", std::to_string(forks));
  if (opts_.watch_period != 0) out->SetMeta("record.watch", WatchSummary(*shm, opts_));
  WriteRecordingEnd(out);
  return out->Close();
}

Status InprocRecording::Finish(RecordResult* result) {
  finished_ = true;
  *result = RecordResult();
  result->mode = options_.mode;
  result->raw_syscalls_note = raw_syscalls_note_;
  result->futex_failure = futex_note_;
  // Finish before Poll saw the end: an attached process is let go, a launched one ended.
  if (target_alive_ && LetGo()) {
    DetachInjected();
    while (target_alive_) CollectOnce();
  } else if (target_alive_) {
    kill(pid_, SIGKILL);
    while (target_alive_) CollectOnce();
    exited_ = Clock::now();
  }
  if (exited_ == Clock::time_point()) exited_ = Clock::now();
  if (LetGo()) area_.ReleaseRings();  // collected; the process keeps the memfd mapped
  Status s = CloseTrace();
  if (!s.ok()) return s;

  const std::vector<uint64_t> lost = merger_->LostByKind();
  for (int k = 0; k < kNumEventKinds; ++k) result->lost += lost[k];
  if (futex_)
    for (uint64_t n : futex_->Lost()) result->lost += n;
  // A launched recording that follows processes names each one (process_family.h).
  if (const uint32_t forks = area_.header()->forks_unrecorded.load(); forks > 0 && opts_.children_socket.empty())
    result->unrecorded_processes.push_back(UnfollowedForks(
        forks, pid_,
        attached_ ? "a process recorded by its pid is recorded alone" : "this recording follows no process"));
  result->events = merge_thread_->out()->events_written();
  result->threads = merger_->Threads().size();
  result->runtime_seen = area_.header()->owner_pid.load() != 0;
  if (opts_.watch_period != 0) result->watch = WatchSummary(*area_.header(), opts_);
  result->target_exited = !attached_ || !AttachedAlive();
  if (LetGo()) {
    result->runtime_note = detach_note_;
    result->uprobes = 0;
  } else if (!child_ && WIFEXITED(status_)) {
    result->exit_code = WEXITSTATUS(status_);
  }
  if (!child_ && WIFSIGNALED(status_)) result->term_signal = WTERMSIG(status_);
  result->wall_seconds = std::chrono::duration<double>(exited_ - start_).count();
  result->drain_seconds = std::chrono::duration<double>(Clock::now() - exited_).count();
  result->max_rss_kb = usage_.ru_maxrss;
  result->target_cpu_seconds = static_cast<double>(usage_.ru_utime.tv_sec + usage_.ru_stime.tv_sec) +
                               static_cast<double>(usage_.ru_utime.tv_usec + usage_.ru_stime.tv_usec) / 1e6;
  result->spool_peak_bytes = queue_.peak();
  return Status::Ok();
}

}  // namespace

Status StartInprocRecording(const RecordOptions& options, std::unique_ptr<Recording>* out) {
  auto recording = std::make_unique<InprocRecording>(options);
  Status st = recording->Begin();
  if (!st.ok()) return st;
  *out = std::move(recording);
  return Status::Ok();
}

Status StartChildRecording(const RecordOptions& options, const ChildProcess& child, std::unique_ptr<Recording>* out) {
  auto recording = std::make_unique<InprocRecording>(options);
  Status st = recording->BeginChild(child);
  if (!st.ok()) return st;
  *out = std::move(recording);
  return Status::Ok();
}

}  // namespace seer::recorder
