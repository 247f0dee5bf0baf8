// The eBPF recording: launch or attach, poll the ring buffer, merge, write.
#include "recorder/ebpf/ebpf_recording.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <memory>
#include <set>
#include <sstream>
#include <utility>

#include "recorder/ebpf/access_joiner.h"
#include "recorder/ebpf/call_site_filter.h"
#include "recorder/ebpf/event_merger.h"
#include "recorder/ebpf/sync_probes.h"
#include "recorder/elf_file.h"
#include "recorder/launch.h"
#include "recorder/merge/ring_collector.h"
#include "recorder/merge/ring_merger.h"
#include "recorder/proc_maps.h"
#include "recorder/rings/attach_point.h"
#include "recorder/rings/shared_area.h"
#include "recorder/trace_metadata.h"
#include "seer/trace.h"

namespace seer::recorder {
namespace {

uint64_t MonotonicNs() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1'000'000'000ull + static_cast<uint64_t>(ts.tv_nsec);
}

std::string Basename(const std::string& path) {
  auto slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

// Which file to probe for a target: the libc it maps, or the binary itself when
// statically linked. For a launch the target has not run yet: a dynamic binary
// will map the same libc this process maps (same loader, same system).
Status ProbedBinaryForLaunch(const std::string& exe, std::string* binary) {
  bool dynamic = false;
  Status st = IsDynamicallyLinked(exe, &dynamic);
  if (!st.ok()) return st;
  if (!dynamic) {
    // As /proc/PID/maps will name it, for matching call sites against it.
    char real[PATH_MAX];
    *binary = realpath(exe.c_str(), real) ? std::string(real) : exe;
    return Status::Ok();
  }
  std::vector<Mapping> maps;
  st = ReadProcMaps(getpid(), &maps);
  if (!st.ok()) return st;
  const Mapping* libc = FindMappedFile(maps, "libc.so");
  if (!libc) return Status::NotFound("cannot find the libc this system uses");
  *binary = libc->path;
  return Status::Ok();
}

Status ProbedBinaryForPid(pid_t pid, std::string* binary) {
  std::vector<Mapping> maps;
  Status st = ReadProcMaps(pid, &maps);
  if (!st.ok()) return Status::NotFound("no such process: " + std::to_string(pid));
  if (const Mapping* libc = FindMappedFile(maps, "libc.so")) {
    *binary = libc->path;
    return Status::Ok();
  }
  *binary = ProcessExecutable(pid);
  if (binary->empty()) return Status::NotFound("cannot read the executable of process " + std::to_string(pid));
  return Status::Ok();
}

EventKind LostKind(uint32_t raw) {
  if (raw < static_cast<uint32_t>(kNumEventKinds)) return static_cast<EventKind>(raw);
  switch (raw) {
    case SEER_EV_SEM_INIT: return EventKind::kSignal;
    case SEER_EV_BARRIER_INIT: return EventKind::kBarrierArrive;
    case SEER_EV_COND_TIMEOUT: return EventKind::kAcquire;
    case SEER_EV_EXEC: return EventKind::kThreadEnd;
    default: return EventKind::kFork;  // clone, pthread_create return, process fork
  }
}

// One recording: the pieces the polling loop shares.
class Session final : public Recording {
 public:
  explicit Session(const RecordOptions& options) : options_(options), result_(&result_storage_) {
    result_->mode = RecordMode::kEbpf;
  }

  Status Begin();
  Status Poll(bool* running) override;
  void Stop() override;
  Status Finish(RecordResult* result) override;
  RecordCounters counters() const override;

 private:
  Status Launch();
  Status Attach();
  Status PollOnce(bool* over);
  Status EndOfLoop();
  Status Drain();
  void OnRecord(const sync_event& e);
  void RefreshModules();
  Status Checkpoint();
  Status ClaimAttachPoint(bool* claimed);
  Status OpenRings();
  void StopRings();
  bool RanOnAfter(pid_t os_tid, uint64_t stamp) const;
  Status CollectRings(bool final);
  Status FinishTrace();
  bool TargetGone();
  bool AfterExec(const sync_event& e);
  void LeaveAfterExec();

  const RecordOptions options_;
  RecordResult result_storage_;
  RecordResult* result_;
  Status error_;  // the first error Poll met: Finish returns it
  bool over_ = false;
  // Stop() in attach mode; an atomic, so that Stop is async-signal-safe.
  std::atomic<bool> stop_requested_{false};
  uint64_t start_ns_ = 0;
  uint64_t last_checkpoint_ns_ = 0;
  std::unique_ptr<TraceWriter> writer_;
  std::unique_ptr<EventMerger> merger_;
  // options_.ebpf.runtime: the runtime's rings, drained and joined with the sync events.
  std::unique_ptr<SharedArea> area_;
  std::unique_ptr<RuntimeAttachPoint> attach_point_;  // attach mode: where area_ lives
  std::unique_ptr<RingCollector> collector_;
  std::unique_ptr<RingMerger> ring_merger_;
  std::unique_ptr<AccessJoiner> joiner_;
  SyncProbes probes_;
  CallSiteFilter filter_;
  std::string binary_;  // the file the uprobes are in
  pid_t pid_ = 0;
  bool launched_ = false;
  bool have_records_ = false;
  bool modules_done_ = false;
  Status write_error_;
  std::vector<sync_event> batch_;
  std::array<uint64_t, SEER_EV_KIND_SLOTS> lost_reported_{};
  uint64_t internal_dropped_ = 0;
  // Attach mode: probes go live one by one over seconds, so the first records can
  // show a thread's lock calls but not its unlock calls; sync records stamped
  // before the last probe was attached are dropped (and counted) for that reason.
  uint64_t record_from_ns_ = 0;
  uint64_t dropped_during_attach_ = 0;
  // exec in the target: records from the new program are not recorded. A launch's
  // own exec of the target happens before exec_from_ns_; exec_ts_ marks the one
  // that ends the trace.
  uint64_t exec_from_ns_ = 0;
  uint64_t exec_ts_ = 0;
  // The module map: (path, load address) of every mapping stored, and whether the
  // target has mapped executable code since the last look.
  std::set<std::pair<std::string, uint64_t>> modules_added_;
  bool modules_stale_ = false;
};

void Session::OnRecord(const sync_event& e) {
  batch_.push_back(e);
  have_records_ = true;
}

void Session::RefreshModules() {
  // After an exec the maps are the new program's; after the end, the pid may be another's.
  if (exec_ts_ != 0 || result_->target_exited) return;
  std::vector<Mapping> maps;
  if (!ReadProcMaps(pid_, &maps).ok()) return;
  filter_.Reset(binary_, maps);
  if (!filter_.ready()) return;  // ld.so has not mapped libc yet
  // Each refresh adds only the mappings not stored yet (libraries dlopen'ed since).
  std::vector<Mapping> added;
  for (const auto& m : maps)
    if (m.executable && !m.path.empty() && modules_added_.insert({m.path, m.start}).second) added.push_back(m);
  for (const auto& m : ModulesFromMaps(added)) writer_->AddModule(m);
  modules_done_ = true;
  modules_stale_ = false;
}

Status Session::Drain() {
  batch_.clear();
  Status st = probes_.Poll(10, [this](const sync_event& e) { OnRecord(e); });
  if (!st.ok()) return st;
  if (!modules_done_ && have_records_) RefreshModules();
  for (const auto& e : batch_) {
    if (AfterExec(e)) continue;
    if (e.kind == SEER_EV_MODULE_MAPPED) {
      modules_stale_ = true;
      continue;
    }
    const bool lifecycle = e.kind == SEER_EV_JOIN || e.kind == SEER_EV_THREAD_EXIT || e.kind == SEER_EV_CLONE ||
                           e.kind == SEER_EV_CREATE_RET || e.kind == SEER_EV_SEM_INIT ||
                           e.kind == SEER_EV_BARRIER_INIT || e.kind == SEER_EV_PROCESS_FORK;
    if (e.ts < record_from_ns_ && !lifecycle) {
      ++dropped_during_attach_;
      continue;
    }
    bool futex = (e.kind == SEER_EV_SIGNAL || e.kind == SEER_EV_WAIT) && e.mode == SEER_MODE_FUTEX;
    if (filter_.ready() && (futex ? filter_.IsLibcInternalFutex(e.pc) : filter_.IsLoaderCall(e.pc))) {
      ++internal_dropped_;
      continue;
    }
    const bool lock_call = e.kind == SEER_EV_ACQUIRE || e.kind == SEER_EV_RELEASE;
    if (lock_call && filter_.ready() && filter_.IsLoaderLock(e.object)) {
      ++internal_dropped_;
      continue;
    }
    merger_->Add(e);
  }
  if (modules_stale_ && modules_done_) RefreshModules();
  uint64_t now = MonotonicNs();
  const uint64_t watermark = now > options_.ebpf.reorder_window_ns ? now - options_.ebpf.reorder_window_ns : 0;
  st = merger_->Advance(watermark);
  if (st.ok() && joiner_) {
    joiner_->SetWatermark(watermark);
    st = CollectRings(/*final=*/false);
  }
  // Every event written so far had happened by now.
  if (st.ok() && start_ns_ != 0 && now > start_ns_) writer_->AddClockSample(now - start_ns_);
  return st;
}

// Attach mode on a binary that carries the runtime: claims its attach point.
// A process without one is recorded sync only, and the result says why.
Status Session::ClaimAttachPoint(bool* claimed) {
  *claimed = false;
  attach_point_ = std::make_unique<RuntimeAttachPoint>();
  Status st = attach_point_->Claim(options_.pid);
  if (st.code() == Status::Code::kNotFound) {
    result_->runtime_note = st.message() + "; recording synchronisation only, no memory accesses";
    attach_point_.reset();
    return Status::Ok();
  }
  if (!st.ok()) return st;
  *claimed = true;
  return Status::Ok();
}

Status Session::OpenRings() {
  area_ = std::make_unique<SharedArea>();
  if (attach_point_) {
    Status st = attach_point_->LayOut(SharedAreaOptions(), area_.get());
    if (!st.ok()) return st;
  } else {
    Status st = area_->Create(SharedAreaOptions());
    if (!st.ok()) return st.WithContext("creating the runtime's rings");
    // The module map is taken at the entry stop; the runtime need not wait for it.
    area_->header()->modules_read.store(1, std::memory_order_release);
  }
  collector_ = std::make_unique<RingCollector>(area_->header());
  ring_merger_ = std::make_unique<RingMerger>(area_->header());
  joiner_ = std::make_unique<AccessJoiner>(
      area_->header(), ring_merger_.get(), [this](pid_t os_tid) { return merger_->Holds(os_tid); },
      [this](const Event& e) { return writer_->Append(e); });
  return Status::Ok();
}

// Attach mode, the end: the runtime stops writing (never waiting for us), and
// nothing it publishes from now on is taken: the sync events drained after
// this moment still include every one that happened before it.
void Session::StopRings() {
  if (!attach_point_ || result_->target_exited) return;
  attach_point_->Detach();
  collector_->StopAtCurrentHeads();
}

// Attach mode, at the end: whether thread `os_tid` wrote runtime records that
// the trace keeps after the sync call stamped `stamp`.
bool Session::RanOnAfter(pid_t os_tid, uint64_t stamp) const {
  if (!collector_ || stamp == SEER_STAMP_NONE) return false;
  rt::ShmHeader* h = area_->header();
  for (uint32_t r = std::min(h->next_ring.load(), h->max_rings); r-- > 0;)
    if (rt::RingDescs(h)[r].os_tid == os_tid) return collector_->StopHead(r) > stamp;
  return false;
}

// Copies what the runtime's threads wrote, orders it and lets the joiner place
// it among the sync events delivered so far.
Status Session::CollectRings(bool final) {
  RingBatch batch;
  if (collector_->Collect(final, &batch)) {
    // Every record copied was written before now.
    const uint64_t collected = MonotonicNs();
    Status st = ring_merger_->Add(&batch, [this, collected](const Event& e) {
      const RingMerger::Origin& o = ring_merger_->origin();
      joiner_->AddRuntime(e, o.ring, o.word, collected);
      return Status::Ok();
    });
    if (!st.ok()) return st;
  }
  return joiner_->Pump(final);
}

// True for a record the merger must not see because of an exec: the launch's exec
// of the target itself, the exec that ends the trace (handed to the merger as the
// end of the thread that called it), and every record stamped after that one.
bool Session::AfterExec(const sync_event& e) {
  if (exec_ts_ != 0) return e.ts >= exec_ts_;
  if (e.kind != SEER_EV_EXEC) return false;
  if (e.ts < exec_from_ns_) return true;
  exec_ts_ = e.ts;
  result_->exec_not_followed = true;
  result_->exec_program = ProcessExecutable(pid_);
  merger_->Add(e);
  return true;
}

// After an exec the target runs a program the trace does not describe: remove the
// probes, and in launch mode wait for its end (seer's exit code is the target's).
void Session::LeaveAfterExec() {
  probes_.Close();
  if (!launched_ || result_->target_exited) return;
  while (!TargetGone()) usleep(10000);  // Stop() passes SIGTERM on meanwhile
}

Status Session::Checkpoint() {
  auto lost = probes_.Lost();
  for (uint32_t k = 0; k < SEER_EV_KIND_SLOTS; ++k) {
    if (k == SEER_EV_MODULE_MAPPED) continue;  // a notice, not an event: the periodic refresh stands in
    if (lost[k] > lost_reported_[k]) writer_->AddLost("bpf-ringbuf", LostKind(k), lost[k] - lost_reported_[k]);
    lost_reported_[k] = lost[k];
  }
  for (const auto& t : merger_->Threads()) writer_->AddThread(t);
  const MergeStats& s = merger_->stats();
  writer_->SetMeta("record.unmatched_releases", std::to_string(s.unmatched_releases));
  writer_->SetMeta("record.forced_order", std::to_string(s.forced));
  writer_->SetMeta("record.late_records", std::to_string(s.late));
  writer_->SetMeta("record.unknown_joins", std::to_string(s.unknown_joins));
  writer_->SetMeta("record.process_forks_not_followed", std::to_string(s.process_forks));
  writer_->SetMeta("record.libc_internal_dropped", std::to_string(internal_dropped_));
  writer_->SetMeta("record.dropped_during_attach", std::to_string(dropped_during_attach_));
  writer_->SetMeta("record.acquires_pending_at_detach", std::to_string(s.pending_acquires));
  return writer_->Flush();
}

bool Session::TargetGone() {
  if (launched_) {
    int status = 0;
    pid_t r = waitpid(pid_, &status, WNOHANG);
    if (r != pid_) return false;
    result_->target_exited = true;
    if (WIFEXITED(status))
      result_->exit_code = WEXITSTATUS(status);
    else if (WIFSIGNALED(status))
      result_->term_signal = WTERMSIG(status);
    return true;
  }
  // Not our child: gone once it no longer exists, or is a zombie.
  if (kill(pid_, 0) != 0 && errno == ESRCH) return result_->target_exited = true;
  std::ifstream stat("/proc/" + std::to_string(pid_) + "/stat");
  std::string line;
  std::getline(stat, line);
  auto close = line.rfind(')');
  if (line.empty() || (close != std::string::npos && close + 2 < line.size() && line[close + 2] == 'Z'))
    return result_->target_exited = true;
  return false;
}

// One round: what the probes delivered, the module map, a checkpoint each second.
// *over: the target is gone or exec'd, the duration ended, or Stop() asked.
Status Session::PollOnce(bool* over) {
  Status st = Drain();
  if (!st.ok()) return st;
  *over = TargetGone() || exec_ts_ != 0 || (!launched_ && stop_requested_.load());
  if (*over) return Status::Ok();
  const uint64_t now = MonotonicNs();
  if (options_.duration_s > 0 && now - start_ns_ >= static_cast<uint64_t>(options_.duration_s * 1e9)) {
    *over = true;
    return Status::Ok();
  }
  if (now - last_checkpoint_ns_ >= 1'000'000'000ull) {
    RefreshModules();  // in case a mapping's record was lost
    st = Checkpoint();
    if (!st.ok()) return st;
    last_checkpoint_ns_ = now;
  }
  return Status::Ok();
}

Status Session::EndOfLoop() {
  StopRings();
  // Records the target submitted before it exited are all in the ring by now.
  for (int i = 0; i < 2; ++i) {
    Status st = Drain();
    if (!st.ok()) return st;
  }
  return Status::Ok();
}

Status Session::Poll(bool* running) {
  if (!over_ && error_.ok()) {
    error_ = PollOnce(&over_);
    if (error_.ok() && over_) error_ = EndOfLoop();
  }
  *running = !over_ && error_.ok();
  return error_;
}

void Session::Stop() {
  if (launched_) {
    if (!result_->target_exited) kill(pid_, SIGTERM);  // pass it on; the target decides how to end
  } else {
    stop_requested_.store(true);
  }
}

RecordCounters Session::counters() const {
  RecordCounters c;
  c.events = writer_ ? writer_->events_written() : 0;
  for (uint64_t n : lost_reported_) c.lost += n;
  c.threads = merger_ ? merger_->Threads().size() : 0;
  return c;
}

Status Session::Launch() {
  LaunchOptions launch_options;
  launch_options.argv = options_.command;
  launch_options.stop_at_entry = true;
  // An instrumented target finds its rings through the environment.
  if (area_) launch_options.in_child = [this](char) { area_->ExportToChild(/*sync_inproc=*/false); };
  recorder::Launch launch;
  Status st = launch.Start(launch_options);
  if (!st.ok()) return st;
  const std::string& exe = launch.executable();
  st = ProbedBinaryForLaunch(exe, &binary_);
  if (!st.ok()) return st;
  const pid_t child = launch.pid();
  pid_ = child;
  launched_ = true;

  // The child waits before exec until the probes are attached.
  st = probes_.Open(child, binary_, options_.ebpf.ringbuf_bytes, area_ ? exe : "");
  if (st.ok()) st = merger_->BeginThread(child, -1, Basename(exe));
  if (!st.ok()) return st;  // the launch ends the child without exec
  std::string cmd;
  for (const auto& a : options_.command) cmd += (cmd.empty() ? "" : " ") + a;
  writer_->SetMeta(meta::kCommandLine, cmd);
  writer_->SetMeta("record.mode", "launch");
  // Held at its entry point, where every library is mapped: the module map is
  // taken before any of its code runs.
  st = launch.Release();
  exec_from_ns_ = MonotonicNs();
  if (!st.ok()) return st;
  RefreshModules();
  return launch.DetachFromEntry();
}

Status Session::Attach() {
  pid_ = options_.pid;
  if (kill(pid_, 0) != 0 && errno == ESRCH) return Status::NotFound("no such process: " + std::to_string(pid_));
  Status st = ProbedBinaryForPid(pid_, &binary_);
  if (!st.ok()) return st;
  std::vector<pid_t> tids;
  st = ListThreads(pid_, &tids);
  if (!st.ok()) return Status::NotFound("no such process: " + std::to_string(pid_));
  // The runtime is in the executable. Through /proc, which still reaches it
  // when the file was replaced since (a rebuild while the program runs).
  const std::string exe = area_ ? "/proc/" + std::to_string(pid_) + "/exe" : "";
  st = probes_.Open(pid_, binary_, options_.ebpf.ringbuf_bytes, exe);
  if (!st.ok()) return st;
  record_from_ns_ = MonotonicNs();
  // Threads that exist already begin the trace without a fork (their parent is unknown).
  for (pid_t tid : tids) {
    st = merger_->BeginThread(tid, -1, ThreadName(pid_, tid));
    if (!st.ok()) return st;
  }
  if (TargetGone()) return Status::NotFound("process " + std::to_string(pid_) + " exited before seer could attach");
  writer_->SetMeta(meta::kCommandLine, ProcessCommandLine(pid_));
  writer_->SetMeta("record.mode", "attach");
  RefreshModules();
  // Last: the counter probe is attached, so every thread that starts recording registers.
  if (attach_point_) attach_point_->Request();
  return Status::Ok();
}

Status Session::FinishTrace() {
  RefreshModules();  // when the target is still there (attach mode): libraries it loaded late
  // A target that runs on: a thread blocked in a lock call at the end never got
  // the lock in this trace.
  const bool detached = !launched_ && !result_->target_exited && exec_ts_ == 0;
  Status st = detached ? merger_->Finish([this](pid_t os, uint64_t stamp) { return RanOnAfter(os, stamp); })
                       : merger_->Finish();
  if (!st.ok()) return st;
  if (joiner_) {
    // The target is gone: the last ring contents, then everything left.
    joiner_->SetWatermark(UINT64_MAX);
    st = CollectRings(/*final=*/true);
    if (!st.ok()) return st;
    const std::vector<uint64_t> lost = ring_merger_->LostByKind();
    for (int k = 0; k < kNumEventKinds; ++k)
      if (lost[k] > 0) writer_->AddLost("runtime-ring", static_cast<EventKind>(k), lost[k]);
    if (const uint64_t n = ring_merger_->ThreadsWithoutRing(); n > 0)
      writer_->AddLost("runtime-no-ring", EventKind::kThreadBegin, n);
    for (uint64_t n : lost) result_->lost += n;
    writer_->SetMeta("record.runtime_order_gaps", std::to_string(ring_merger_->order_gaps()));
    writer_->SetMeta("record.runtime_reordered", std::to_string(joiner_->stats().reordered));
    writer_->SetMeta("record.runtime_orphaned", std::to_string(joiner_->stats().orphaned));
    result_->runtime_seen = area_->header()->owner_pid.load() != 0;
    writer_->SetMeta("record.runtime_rings",
                     std::to_string(std::min(area_->header()->next_ring.load(), area_->header()->max_rings)));
    if (!result_->runtime_seen && attach_point_)
      result_->runtime_note = "no thread of process " + std::to_string(pid_) +
                              " ran instrumented code while seer was attached; no memory accesses recorded";
  }
  // Threads still running at detach have no thread end; give them their names now.
  for (pid_t tid : merger_->LiveThreads()) merger_->SetThreadName(tid, ThreadName(pid_, tid));
  // After an exec, the exit status would be the new program's, not the traced one's.
  // Known only for a target seer launched (attach mode cannot wait for another's child).
  if (result_->target_exited && exec_ts_ == 0 && (result_->exit_code >= 0 || result_->term_signal != 0))
    writer_->SetMeta("record.exit_status", std::to_string(result_->ExitStatus()));
  writer_->SetMeta("record.exec_not_followed", exec_ts_ != 0 ? "1" : "0");
  WriteRecordingEnd(writer_.get());
  st = Checkpoint();
  if (!st.ok()) return st;
  result_->events = writer_->events_written();
  result_->threads = merger_->Threads().size();
  for (uint64_t n : lost_reported_) result_->lost += n;
  // Named, never dropped silently (the in-process modes follow them: process_family.h).
  if (const uint64_t forks = merger_->stats().process_forks; forks > 0)
    result_->unrecorded_processes.push_back(
        UnfollowedForks(forks, pid_,
                        launched_ ? "the eBPF mode follows no process; --sync=preload or a seer-cc build does"
                                  : "a process recorded by its pid is recorded alone"));
  return writer_->Close();
}

Status Session::Begin() {
  Status st = CheckRecordPrivileges();
  if (!st.ok()) return st;
  if (options_.command.empty() && options_.pid <= 0) return Status::InvalidArgument("give a command to run or -p PID");

  TraceWriterOptions wopts;
  st = OpenRecordingWriter(options_, wopts, &writer_);
  if (!st.ok()) return st;
  bool runtime = options_.ebpf.runtime;
  if (runtime && options_.pid > 0) {
    st = ClaimAttachPoint(&runtime);
    if (!st.ok()) return st;
  }
  if (runtime) {
    st = OpenRings();
    if (!st.ok()) return st;
    merger_ = std::make_unique<EventMerger>([this](const Event& e) {
      joiner_->AddSync(e, merger_->origin().os_tid, merger_->origin().stamp);
      return Status::Ok();
    });
  } else {
    merger_ = std::make_unique<EventMerger>([this](const Event& e) { return writer_->Append(e); });
  }

  WriteRecordingStart(writer_.get());
  writer_->SetMeta(meta::kClock, "bpf_ktime_get_ns, ordered by timestamp");
  writer_->SetMeta(meta::kPcKind, "address");
  writer_->SetMeta("record.sync", "ebpf");
  if (runtime) {
    writer_->SetMeta("sync", "ebpf");
    writer_->SetMeta("record.runtime", "accesses from the seer runtime's rings, placed by the probes' stamps");
    writer_->SetMeta(meta::kClock,
                     "sync events: bpf_ktime_get_ns, ordered by timestamp; runtime records: exact in program "
                     "order among their thread's sync events (stamps), across threads in the runtime's order "
                     "where it agrees, else just before their thread's next sync event");
  }

  st = options_.pid > 0 ? Attach() : Launch();
  if (!st.ok()) return st;
  writer_->SetMeta("record.pid", std::to_string(pid_));
  writer_->SetMeta("record.probed_binary", binary_);
  writer_->SetMeta("record.ringbuf_bytes", std::to_string(probes_.ringbuf_bytes()));
  std::string attached, missing;
  for (const auto& s : probes_.attached()) attached += (attached.empty() ? "" : ",") + s;
  for (const auto& s : probes_.missing()) missing += (missing.empty() ? "" : ",") + s;
  writer_->SetMeta("record.probes", attached);
  writer_->SetMeta("record.probes_missing", missing);
  writer_->SetMeta("record.uprobes", std::to_string(probes_.uprobes()));
  writer_->SetMeta("record.uprobe_links", probes_.uprobe_links_note());
  result_->uprobes = probes_.uprobes();
  writer_->SetMeta("record.tracefs", probes_.tracefs_note());
  writer_->SetMeta("record.syscall_tracepoints", probes_.raw_syscall_tracepoints() ? "raw" : "per-syscall");
  if (probes_.raw_syscall_tracepoints()) result_->raw_syscalls_note = probes_.tracefs_note();
  if (options_.ebpf.runtime && options_.pid > 0)
    writer_->SetMeta("record.attach_point", attach_point_ ? "claimed" : result_->runtime_note);
  start_ns_ = last_checkpoint_ns_ = MonotonicNs();
  return Status::Ok();
}

Status Session::Finish(RecordResult* result) {
  Status st = error_;
  if (st.ok() && !over_) st = EndOfLoop();  // Finish before Poll said the end: the end is now
  if (st.ok()) st = FinishTrace();
  // Whatever happened: the runtime stops now, not when the probes are gone (seconds later).
  if (attach_point_) {
    attach_point_->Detach();
    if (!result_->target_exited) area_->ReleaseRings();
  }
  if (st.ok() && exec_ts_ != 0) LeaveAfterExec();
  if (!st.ok() && launched_ && !result_->target_exited) {
    // The trace failed (disk full, ...): stop tracing and let the target finish.
    probes_.Close();
    while (!TargetGone()) usleep(10000);
  }
  *result = *result_;
  return st;
}

}  // namespace

Status StartEbpfRecording(const RecordOptions& options, std::unique_ptr<Recording>* out) {
  auto session = std::make_unique<Session>(options);
  Status st = session->Begin();
  if (!st.ok()) return st;
  *out = std::move(session);
  return Status::Ok();
}

}  // namespace seer::recorder
