// What a recording that begins inside a running process leaves out: a release
// of a lock its thread took before the recording began (its acquire is not in
// the trace), and a free of a block allocated before (no allocation to end).
// Kept, they would tell the analyses of a lock released by a thread that never
// held it, or of memory freed that was never allocated. The eBPF attach drops
// the same releases (daemon/ebpf/event_merger.cc); both are counted.
#pragma once

#include <cstdint>
#include <unordered_map>
#include <unordered_set>

#include "seer/event.h"

namespace seer::daemon {

class AttachFilter {
 public:
  // False when `e` is to be left out. Events come in trace order.
  bool Keep(const Event& e);

  uint64_t unmatched_releases() const { return unmatched_releases_; }
  uint64_t frees_before_attach() const { return frees_before_attach_; }

 private:
  struct HeldKey {
    uint32_t tid;
    uint64_t lock;
    bool operator==(const HeldKey& o) const { return tid == o.tid && lock == o.lock; }
  };
  struct HeldHash {
    size_t operator()(const HeldKey& k) const { return std::hash<uint64_t>()(k.lock * 0x9e3779b97f4a7c15ull ^ k.tid); }
  };
  std::unordered_map<HeldKey, uint32_t, HeldHash> held_;  // how often each thread holds each lock
  std::unordered_set<uint64_t> live_;                    // blocks allocated since the recording began
  uint64_t unmatched_releases_ = 0;
  uint64_t frees_before_attach_ = 0;
};

}  // namespace seer::daemon
