// The recorder's side of the shared rings (include/seer/ring_layout.h): creates the
// memfd the target inherits, lays out its header and descriptors, and names it
// in a child's environment. Used by both launchers: `--sync=inproc`
// (runtime_modes/inproc_recording.cc) and `--sync=ebpf` on an instrumented binary (ebpf/ebpf_recording.cc).
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <cstdint>

#include "seer/ring_layout.h"
#include "seer/status.h"

namespace seer::recorder {

struct SharedAreaOptions {
  uint32_t max_rings = 1024;
  uint64_t ring_words = 1ull << 19;  // a power of two, at least 64
  uint64_t wait_ns = 2000000000ull;
  uint32_t options = 0;       // rt::kOption* (ring_layout.h)
  uint32_t watch_period = 0;  // ShmHeader::watch_period: 0, no watchpoints
  uint32_t watch_delay_us = 0;
  uint32_t watch_budget_permille = 0;
};

class SharedArea {
 public:
  SharedArea() = default;
  SharedArea(const SharedArea&) = delete;
  SharedArea& operator=(const SharedArea&) = delete;
  ~SharedArea();

  // A fresh memfd, for a target about to be launched.
  Status Create(const SharedAreaOptions& o);

  // Attach mode: lays the area out at `offset` in `fd` (a running target's
  // attach point, include/seer/ring_layout.h), growing the file to hold it. Takes
  // ownership of `fd`.
  Status CreateOn(int fd, uint64_t offset, const SharedAreaOptions& o);

  // In a forked child before exec: tells the runtime where the rings are and
  // whether it records synchronisation itself ("inproc") or leaves it to the
  // eBPF probes ("ebpf"); `futex_stamps` (inproc): the futex tracepoints run
  // too, and each thread registers its record counter for their stamps.
  void ExportToChild(bool sync_inproc, bool futex_stamps = false) const;

  // Attach mode, after the detach and the last collection: gives the rings'
  // pages back (the target, which keeps the memfd mapped, would otherwise hold
  // up to a ring per thread that recorded). A thread still writing before it
  // notices the detach gets fresh zero pages; nobody reads them.
  void ReleaseRings();

  // Sets every ring's pause word (ring_layout.h, RingDesc::paused), free rings
  // included: a thread that starts later finds the current state.
  void SetPaused(bool paused);

  // Where process `pid` maps the header (its mapping of this area's memfd),
  // for what the recorder registers in the target's terms (FutexEvents::Resume).
  Status HeaderAddressIn(pid_t pid, uint64_t* address) const;

  int fd() const { return fd_; }
  rt::ShmHeader* header() const { return reinterpret_cast<rt::ShmHeader*>(static_cast<char*>(base_) + offset_); }

 private:
  int fd_ = -1;
  void* base_ = nullptr;
  size_t bytes_ = 0;     // mapped, from the file's start
  uint64_t offset_ = 0;  // of the header in the mapping
};

}  // namespace seer::recorder
