// Loads seer's BPF sync tracer (bpf/seer_sync.bpf.c) for one process, attaches its
// uprobes by file offset to the pthread/semaphore functions of one binary (the libc
// the target maps, or a statically linked target itself) and its tracepoints, and
// drains the ring buffer.
#pragma once

#include <sys/types.h>

#include <array>
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "bpf/sync_event.h"
#include "recorder/ebpf/tracefs.h"
#include "seer/status.h"

struct seer_sync_bpf;
struct ring_buffer;
struct bpf_link;
struct bpf_program;

namespace seer::recorder {

struct FunctionLocation;  // recorder/elf_file.h

// One probed function: its symbol and what the probe does (enum seer_sync_op).
struct ProbeSpec {
  const char* symbol;
  int op;
  bool on_return;  // also a uretprobe: the outcome decides the event
};

// Every function seer probes, in the order they are attached.
const std::vector<ProbeSpec>& SyncProbeSpecs();

class SyncProbes {
 public:
  SyncProbes() = default;
  SyncProbes(const SyncProbes&) = delete;
  SyncProbes& operator=(const SyncProbes&) = delete;
  ~SyncProbes() { Close(); }

  // Detaches every probe and frees the programs; the target runs on untouched.
  void Close();
  bool loaded() const { return skel_ != nullptr; }

  // Before Open: load the programs that stop what the target forks and the
  // target at an exec (SetStopNewPrograms), for a recorder that follows the
  // processes of its family (ebpf_family.h). False when this kernel cannot
  // (bpf_send_signal_task, Linux 6.13): *why says so.
  bool FollowProcesses(std::string* why);
  // After Open with FollowProcesses: while on, a process the target forks is
  // stopped before its first instruction, and so is the target at an exec
  // (sync_event.aux of the record is then 1). Turn it off before the end.
  void SetStopNewPrograms(bool on);

  // Loads the programs for process `tgid` with a ring buffer of at least
  // `ringbuf_bytes` (rounded up to a power of two), then attaches the uprobes in
  // `binary` (only for `tgid`'s address space) and the tracepoints. `runtime_binary`:
  // the target's executable when it carries seer's runtime; its counter
  // registration is probed too, so every record is stamped with its thread's
  // record count.
  Status Open(pid_t tgid, const std::string& binary, uint64_t ringbuf_bytes, const std::string& runtime_binary = "");

  // The futex tracepoints alone (and thread exit), no uprobe: the raw futex
  // syscalls of a target whose runtime records the rest (kPreload). Each
  // record is stamped with its thread's record count once the thread has
  // registered its cursor (the runtime's registration futex call,
  // SEER_FUTEX_REGISTER_MAGIC).
  Status OpenFutexOnly(pid_t tgid, uint64_t ringbuf_bytes);

  // After OpenFutexOnly: detaches and re-attaches the futex programs. While
  // any of them is attached the kernel sends every system call of every task
  // on the machine through its tracing slow path, futex or not
  // (SYSCALL_TRACEPOINT is set on all tasks): 60 ns a call with the
  // per-syscall tracepoints, 240 ns with the raw ones (raw_syscall_tracepoints()),
  // which cost a syscall-heavy server about a fifth of its throughput; the
  // service's duty cycle detaches them while it records nothing. Thread exits
  // stay traced (on_exit: a scheduler tracepoint).
  void DetachSyscallPrograms();
  Status AttachSyscallPrograms();
  bool syscall_programs_attached() const { return !syscall_links_.empty(); }

  // Registers thread `tid`'s record counter at `address` (in the target) as
  // the runtime's registration call would have, for a thread that made it
  // while the syscall programs were detached.
  Status RegisterCounter(pid_t tid, uint64_t address);

  // Waits up to `timeout_ms` for a wakeup, then hands every waiting record to `fn`.
  Status Poll(int timeout_ms, const std::function<void(const sync_event&)>& fn);

  // Failed ring buffer reservations so far, per record kind, summed over CPUs.
  std::array<uint64_t, SEER_EV_KIND_SLOTS> Lost() const;

  const std::vector<std::string>& attached() const { return attached_; }
  const std::vector<std::string>& missing() const { return missing_; }
  uint64_t ringbuf_bytes() const { return ringbuf_bytes_; }
  // Uprobes and uretprobes attached (each one a trap per call in the target).
  uint64_t uprobes() const { return uprobes_; }
  // After Open: how the uprobes were attached (the trace's record.uprobe_links):
  // "uprobe_multi" (Linux 6.6: one link for all entries, one for all returns),
  // or "one per function (WHY)". Closing a uprobe's link waits for a kernel
  // grace period under a global mutex, about 80 ms; a multi link waits once.
  const std::string& uprobe_links_note() const { return uprobe_links_note_; }
  // The system-call programs sit on the raw sys_enter/sys_exit tracepoints
  // (where tracefs, which the per-syscall ones need, is not mounted and seer
  // may not mount it, or SEER_RAW_SYSCALL_TRACEPOINTS is set) instead of
  // syscalls:sys_*_futex.
  bool raw_syscall_tracepoints() const { return raw_syscalls_; }
  // After Open*: where tracefs was found or mounted, or why the raw set is
  // used and what it costs (the trace's record.tracefs).
  const std::string& tracefs_note() const { return tracefs_note_; }

 private:
  static int OnRecord(void* ctx, void* data, size_t size);
  // Finds or mounts tracefs (recorder/ebpf/tracefs.h) into tracefs_, unless
  // SEER_RAW_SYSCALL_TRACEPOINTS is set; says what happened in tracefs_note_.
  // False: the raw system-call programs must be used.
  bool FindTracefs();
  // Opens and loads the BPF object for `tgid` with its ring buffer.
  Status Load(pid_t tgid, uint64_t ringbuf_bytes);
  // The uprobes on the functions of SyncProbeSpecs() found in `binary`, on one
  // uprobe_multi link for the entries and one for the returns; false (nothing
  // attached) where the kernel refuses that or SEER_PER_FUNCTION_UPROBES is set.
  bool AttachUprobesAtOnce(pid_t tgid, const std::string& binary, const std::map<std::string, FunctionLocation>& where);
  // The same with one uprobe link per function; a function whose first
  // instruction uprobes cannot handle is left out (missing()).
  Status AttachUprobesOneByOne(pid_t tgid, const std::string& binary,
                               const std::map<std::string, FunctionLocation>& where);
  // Attaches the tracepoint programs (kept in links_) and opens the event ring.
  Status AttachTracepointsAndOpenRing(const std::vector<bpf_program*>& programs);
  // The futex programs of the set loaded (raw_syscalls_), and the mmap one.
  std::vector<bpf_program*> FutexPrograms() const;
  bpf_program* MmapProgram() const;
  bpf_program* ForkProgram() const;

  seer_sync_bpf* skel_ = nullptr;
  ring_buffer* ring_ = nullptr;
  std::vector<bpf_link*> links_;
  std::vector<bpf_link*> syscall_links_;  // OpenFutexOnly's futex programs
  std::vector<int> multi_link_fds_;       // AttachUprobesAtOnce's links
  std::string uprobe_links_note_;
  bool raw_syscalls_ = false;
  bool follow_processes_ = false;  // FollowProcesses: on_fork_follow instead of on_fork
  Tracefs tracefs_;                // where the per-syscall tracepoints' ids are (unless raw_syscalls_)
  std::string tracefs_note_;
  std::vector<std::string> attached_;
  std::vector<std::string> missing_;
  uint64_t ringbuf_bytes_ = 0;
  uint64_t uprobes_ = 0;
  const std::function<void(const sync_event&)>* fn_ = nullptr;
};

}  // namespace seer::recorder
