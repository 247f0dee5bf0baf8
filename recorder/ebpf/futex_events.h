// Raw futex syscalls for a recording whose runtime records everything else
// (kInproc, kPreload, kInject with --futex-tracepoints): the futex tracepoints, no
// uprobe. Each record is kept when the program issued the instruction itself
// (not libc inside a call the runtime records, nor libc's syscall(), which the
// runtime interposes), placed in its thread's ring by the stamp the
// tracepoint read from the thread's record counter, and numbered in the order
// the records were reserved, which is the order they happened (a wake is
// reserved at syscall entry, the wait it ends at exit). RingMerger::AddExternal
// puts them into the merge.
#pragma once

#include <sys/types.h>

#include <array>
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "recorder/ebpf/call_site_filter.h"
#include "recorder/ebpf/sync_probes.h"
#include "seer/event.h"
#include "seer/ring_layout.h"
#include "seer/status.h"

namespace seer::recorder {

struct FutexEvent {
  uint32_t ring = 0;    // the thread's ring
  uint64_t word = 0;    // its record count when the call happened
  uint64_t number = 0;  // 0, 1, 2, ... across threads, in the order they happened
  Event event;          // kSignal (a wake) or kWait (a wait that was woken) on the futex word
};

class FutexEvents {
 public:
  // Loads the tracepoints for process `tgid` (launched, held before exec).
  Status Open(pid_t tgid, uint64_t ringbuf_bytes);

  // The target's libc, once mapped: tells libc's own futex calls from the program's.
  void UpdateMaps();

  // Appends what the tracepoints recorded since the last call. Called after
  // the rings were copied: every record placed before a copied ring word is
  // in by then (the tracepoint ran on the thread before it wrote that word).
  Status Take(const rt::ShmHeader* shm, std::vector<FutexEvent>* out);

  // The service's duty cycle: while the runtime is paused the futex
  // tracepoints are detached, for they cost every system call on the machine
  // (SyncProbes::DetachSyscallPrograms). Resume re-attaches them, then
  // registers the counter of each running thread of `shm` (mapped at
  // `header_in_target` in the target), for those that started meanwhile: their
  // own registration call went unseen. Call Take after Suspend to collect what
  // the tracepoints recorded up to it.
  void Suspend() { probes_.DetachSyscallPrograms(); }
  Status Resume(const rt::ShmHeader* shm, uint64_t header_in_target);
  bool suspended() const { return !probes_.syscall_programs_attached(); }

  // Which system-call tracepoints carry them, and why (SyncProbes).
  bool raw_syscall_tracepoints() const { return probes_.raw_syscall_tracepoints(); }
  const std::string& tracefs_note() const { return probes_.tracefs_note(); }

  uint64_t kept() const { return number_; }
  uint64_t libc_internal() const { return libc_internal_; }
  uint64_t unplaced() const { return unplaced_; }  // from threads without a ring or registration
  std::array<uint64_t, SEER_EV_KIND_SLOTS> Lost() const { return probes_.Lost(); }

 private:
  // The ring whose thread has kernel tid `tid`, or -1.
  int64_t RingOf(const rt::ShmHeader* shm, pid_t tid);

  pid_t tgid_ = 0;
  SyncProbes probes_;
  CallSiteFilter filter_;
  std::string libc_;
  std::unordered_map<pid_t, uint32_t> rings_;  // kernel tid -> ring (tids are reused: refreshed on exit)
  uint64_t number_ = 0;
  uint64_t libc_internal_ = 0;
  uint64_t unplaced_ = 0;
};

}  // namespace seer::recorder
