// What a recording that begins inside a running process leaves out: a release
// of a lock its thread took before the recording began (its acquire is not in
// the trace), and a free of a block allocated before (no allocation to end).
// Kept, they would tell the analyses of a lock released by a thread that never
// held it, or of memory freed that was never allocated. The eBPF attach drops
// the same releases (recorder/ebpf/event_merger.cc); both are counted.
#pragma once

#include <cstdint>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "seer/event.h"

namespace seer::recorder {

class AttachFilter {
 public:
  // False when `e` is to be left out. Events come in trace order.
  bool Keep(const Event& e);

  uint64_t unmatched_releases() const { return unmatched_releases_; }
  uint64_t frees_before_attach() const { return frees_before_attach_; }

 private:
  // One thread's held locks and how often each is held: few at a time, so a
  // vector, kept for the thread's life (a node per acquire was a malloc and a
  // free per lock pair, most of this filter's cost on a lock-heavy service).
  using Held = std::vector<std::pair<uint64_t, uint32_t>>;
  void Acquired(uint32_t tid, uint64_t lock);
  // False when `tid` does not hold `lock`.
  bool Released(uint32_t tid, uint64_t lock);

  std::unordered_map<uint32_t, Held> held_;  // by thread
  std::unordered_set<uint64_t> live_;        // blocks allocated since the recording began
  uint64_t unmatched_releases_ = 0;
  uint64_t frees_before_attach_ = 0;
};

}  // namespace seer::recorder
