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
#include "recorder/entry_stop.h"
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
  const std::string exe = ProcessExecutable(pid);
  if (exe.empty()) return Status::NotFound("cannot read the executable of process " + std::to_string(pid));
  // A program stopped at its exec: ld.so has not mapped libc yet.
  return ProbedBinaryForLaunch(exe, binary);
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
class Session final : public EbpfProcessRecording {
 public:
  Session(const RecordOptions& options, const EbpfFollow& follow)
      : options_(options), follow_(follow), result_(&result_storage_) {
    result_->mode = RecordMode::kEbpf;
  }

  Status Begin();
  Status Poll(bool* running) override;
  void Stop() override;
  Status Finish(RecordResult* result) override;
  RecordCounters counters() const override;
  pid_t target_pid() const override { return pid_; }
  void AddEndMeta(const std::string& key, const std::string& value) override { end_meta_.emplace_back(key, value); }
  Status GiveRuntimeArea(const std::function<Status(int area_fd)>& send) override;

 private:
  Status Launch();
  Status Attach();
  Status Adopt();
  // A record of a process the tracer stopped (a fork, an exec): to the follower.
  void HandOver(const sync_event& e);
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
  const EbpfFollow follow_;
  // follow_.seen is set and this kernel can stop new processes; else why not.
  bool following_ = false;
  std::string follow_note_;
  uint64_t unfollowed_forks_ = 0;  // forks that ran on unrecorded (not stopped)
  bool exec_followed_ = false;     // the exec that ended the trace stopped the new program for the follower
  std::vector<std::pair<std::string, std::string>> end_meta_;  // AddEndMeta
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
  filter_.Add(binary_, maps);
  if (!filter_.ready()) return;  // ld.so has not mapped libc yet
  // Each refresh adds only the mappings not stored yet (libraries dlopen'ed since).
  std::vector<Mapping> added;
  for (const auto& m : maps)
    if (m.executable && !m.path.empty() && modules_added_.insert({m.path, m.start}).second) added.push_back(m);
  for (const auto& m : ModulesFromMaps(added)) writer_->AddModule(m);
  modules_done_ = true;
  modules_stale_ = false;
}

void Session::HandOver(const sync_event& e) {
  if (e.kind == SEER_EV_PROCESS_FORK && e.aux != 1) {
    ++unfollowed_forks_;
    return;
  }
  if (e.aux != 1) return;  // an exec that was not stopped: the trace just ends there
  const NewProgram p = e.kind == SEER_EV_PROCESS_FORK ? NewProgram{static_cast<pid_t>(e.object), pid_, true}
                                                      : NewProgram{pid_,
                                                                   follow_.adopt ? follow_.adopted.parent
                                                                   : launched_   ? getpid()
                                                                                 : ParentProcess(pid_),
                                                                   false};
  if (follow_.seen)
    follow_.seen(p);
  else
    kill(p.pid, SIGCONT);  // only stopped for a follower: never left so
}

Status Session::Drain() {
  batch_.clear();
  // After a followed exec the probes are gone: the new program has a recording of its own.
  Status st = probes_.loaded() ? probes_.Poll(10, [this](const sync_event& e) { OnRecord(e); }) : Status::Ok();
  if (!st.ok()) return st;
  if (!modules_done_ && have_records_) RefreshModules();
  for (const auto& e : batch_) {
    // Before any filter: a process stopped for the follower must reach it
    // (even a fork by the new program after an exec), or it stays stopped.
    if (e.kind == SEER_EV_PROCESS_FORK || (e.kind == SEER_EV_EXEC && e.ts >= exec_from_ns_)) HandOver(e);
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
  if (exec_followed_ && probes_.loaded()) {
    // The new program's recording has probes of its own: these would fire on
    // in its image for nothing. The lost counts first, while they can be read.
    st = Checkpoint();
    if (!st.ok()) return st;
    probes_.Close();
  }
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
  exec_followed_ = e.aux == 1;
  result_->exec_not_followed = !exec_followed_;
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
  writer_->SetMeta("record.process_forks_not_followed", std::to_string(unfollowed_forks_));
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
  if (following_) {
    // No process stops for a follower from now on; one that a tracer
    // instance already stopped sends its record within microseconds, and
    // the drains below hand it over (the follower continues it).
    probes_.SetStopNewPrograms(false);
    usleep(2000);
  }
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
  if (area_)
    launch_options.in_child = [this](char) {
      area_->ExportToChild(/*sync_inproc=*/false);
      // Where its processes ask for rings of their own (ebpf_family.h).
      if (!options_.inproc.children_socket.empty())
        setenv(rt::kChildrenEnv, options_.inproc.children_socket.c_str(), 1);
    };
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
  // After the launch's own exec of the target, which must not stop it.
  if (following_) probes_.SetStopNewPrograms(true);
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

// A process the tracer stopped for this recording (a fork, or an exec): no
// thread has run since, so nothing is dropped while the probes go live.
Status Session::Adopt() {
  pid_ = follow_.adopted.pid;
  // Its program since the fork or exec, which cannot change while it is
  // stopped; read now, since a short program can have ended by the end of this.
  const std::string exe = ProcessExecutable(pid_);
  const std::string command_line = ProcessCommandLine(pid_);
  Status st = ProbedBinaryForPid(pid_, &binary_);
  if (!st.ok()) return st;
  std::vector<pid_t> tids;
  st = ListThreads(pid_, &tids);
  if (!st.ok()) return Status::NotFound("no such process: " + std::to_string(pid_));
  // With rings for its runtime: its threads' counter registrations are probed too.
  st = probes_.Open(pid_, binary_, options_.ebpf.ringbuf_bytes, area_ ? exe : "");
  if (!st.ok()) return st;
  for (pid_t tid : tids) {
    st = merger_->BeginThread(tid, -1, ThreadName(pid_, tid));
    if (!st.ok()) return st;
  }
  if (!follow_.adopted.forked) {
    // A dynamic program has only ld.so mapped yet: held at its entry point,
    // as a launch is, for the module map and the call-site filter (a program
    // that ends before the first look at its maps would leave neither).
    bool dynamic = false;
    if (IsDynamicallyLinked(exe, &dynamic).ok() && dynamic) {
      EntryStop entry;
      st = entry.RunStoppedToEntry(pid_);
      if (st.ok()) RefreshModules();
      const Status detached = entry.Detach();
      if (st.ok()) st = detached;
      if (!st.ok()) return st.WithContext("running process " + std::to_string(pid_) + " to its entry point");
    }
  }
  if (!area_ && CarriesRuntime(exe)) {
    // Its runtime would need rings of its own from a recorder it can ask
    // (a launched recording's family: ebpf_family.h).
    result_->runtime_note =
        "synchronisation only: the runtime in a process the eBPF recorder follows after an attach records no "
        "accesses";
    writer_->SetMeta("record.runtime", result_->runtime_note);
  }
  writer_->SetMeta(meta::kCommandLine, command_line);
  writer_->SetMeta("record.mode", follow_.adopted.forked ? "forked" : "exec'd");
  writer_->SetMeta("record.process",
                   std::string(follow_.adopted.forked ? "forked by process " : "exec'd; parent process ") +
                       std::to_string(follow_.adopted.parent));
  // A forked process maps what its parent did, and a static program is all
  // mapped at its exec (a dynamic one was read at its entry point above).
  RefreshModules();
  return Status::Ok();
}

Status Session::GiveRuntimeArea(const std::function<Status(int area_fd)>& send) {
  if (!area_ || attach_point_) return Status::NotSupported("this recording has no rings for a runtime");
  return send(area_->fd());
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
    if (!result_->runtime_seen && follow_.adopt)
      result_->runtime_note = "synchronisation only: its runtime did not ask for rings";
  }
  // Threads still running at detach have no thread end; give them their names now.
  for (pid_t tid : merger_->LiveThreads()) merger_->SetThreadName(tid, ThreadName(pid_, tid));
  // After an exec, the exit status would be the new program's, not the traced one's.
  // Known only for a target seer launched (attach mode cannot wait for another's child).
  if (result_->target_exited && exec_ts_ == 0 && (result_->exit_code >= 0 || result_->term_signal != 0))
    writer_->SetMeta("record.exit_status", std::to_string(result_->ExitStatus()));
  writer_->SetMeta("record.exec_not_followed", exec_ts_ != 0 && !exec_followed_ ? "1" : "0");
  for (const auto& [key, value] : end_meta_) writer_->SetMeta(key, value);
  WriteRecordingEnd(writer_.get());
  st = Checkpoint();
  if (!st.ok()) return st;
  result_->events = writer_->events_written();
  result_->threads = merger_->Threads().size();
  for (uint64_t n : lost_reported_) result_->lost += n;
  // Named, never dropped silently (the others are followed: ebpf_family.h).
  if (unfollowed_forks_ > 0)
    result_->unrecorded_processes.push_back(
        UnfollowedForks(unfollowed_forks_, pid_,
                        !follow_.seen ? "this recording follows no process (the service records one)"
                        : !following_ ? follow_note_
                                      : "forked while the recording ended"));
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
  if (runtime && options_.pid > 0 && !follow_.adopt) {
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

  if (follow_.seen) {
    following_ = probes_.FollowProcesses(&follow_note_);
    writer_->SetMeta("record.follow_processes", following_ ? "1" : follow_note_);
  }
  st = follow_.adopt ? Adopt() : options_.pid > 0 ? Attach() : Launch();
  if (!st.ok()) return st;
  if (following_ && !launched_) probes_.SetStopNewPrograms(true);
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
  if (following_) probes_.SetStopNewPrograms(false);  // on an error too: nothing stops for a recorder that ends
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

Status StartEbpfRecording(const RecordOptions& options, const EbpfFollow& follow,
                          std::unique_ptr<EbpfProcessRecording>* out) {
  auto session = std::make_unique<Session>(options, follow);
  Status st = session->Begin();
  if (!st.ok()) return st;
  *out = std::move(session);
  return Status::Ok();
}

}  // namespace seer::recorder
