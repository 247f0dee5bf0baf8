// The recorder's side of the shared rings (runtime/ring_layout.h): creates the
// memfd the target inherits, lays out its header and descriptors, and names it
// in a child's environment. Used by both launchers: `--sync=inproc`
// (inproc_recorder.cc) and `--sync=ebpf` on an instrumented binary (daemon/).
#pragma once

#include <cstddef>
#include <cstdint>

#include "runtime/ring_layout.h"
#include "seer/status.h"

namespace seer {

struct SharedAreaOptions {
  uint32_t max_rings = 1024;
  uint64_t ring_words = 1ull << 19;  // a power of two, at least 64
  uint64_t wait_ns = 2000000000ull;
};

class SharedArea {
 public:
  SharedArea() = default;
  SharedArea(const SharedArea&) = delete;
  SharedArea& operator=(const SharedArea&) = delete;
  ~SharedArea();

  Status Create(const SharedAreaOptions& o);

  // In a forked child before exec: tells the runtime where the rings are and
  // whether it records synchronisation itself ("inproc") or leaves it to the
  // eBPF probes ("ebpf").
  void ExportToChild(bool sync_inproc) const;

  int fd() const { return fd_; }
  rt::ShmHeader* header() const { return static_cast<rt::ShmHeader*>(base_); }

 private:
  int fd_ = -1;
  void* base_ = nullptr;
  size_t bytes_ = 0;
};

}  // namespace seer
