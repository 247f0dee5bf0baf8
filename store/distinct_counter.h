// Counting the distinct variables (addresses of plain and atomic accesses),
// locations (their pcs) and locks (of acquires and releases) of a stream of
// events: TraceCounters::distinct_*. The writer counts them as it writes, unless
// told not to (TraceWriterOptions::count_distinct: the recorder), and then
// `seer info` counts them as it decodes.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

#include "seer/event.h"
#include "store/flat_set.h"

namespace seer::store {

class DistinctCounter {
 public:
  [[gnu::always_inline]] void Count(const Event& e) {
    if (IsAccess(e.kind) || IsAtomicAccess(e.kind)) {
      // Most accesses touch an object and come from a pc seen a moment ago; a
      // hit in these small direct-mapped caches proves the key was counted and
      // saves a set lookup (which misses the cache once the set is large). The
      // object and the pc are cached apart: a loop's pc touches a new object
      // each time, yet the object (touched in the previous pass) and the pc are
      // both recent.
      Add(&recent_objects_[((e.object >> 3) ^ (e.object >> 15)) & (kRecentObjects - 1)], e.object, &variables_);
      Add(&recent_pcs_[(e.pc * 0x9e3779b97f4a7c15ull) >> (64 - kRecentPcBits)], e.pc, &locations_);
    } else if (e.kind == EventKind::kAcquire || e.kind == EventKind::kRelease) {
      // A release names the lock its acquire named a moment ago, and a service
      // takes a few locks (its threads' own, a queue's) most of the time: the
      // set lookup, a cache miss once the set is large (a tenth of a recording
      // merger's samples on memcached, with 8,192 item locks), is rarely needed.
      Add(&recent_locks_[((e.object >> 3) ^ (e.object >> 13)) & (kRecentLocks - 1)], e.object, &locks_);
    }
  }

  uint64_t variables() const { return variables_.size(); }
  uint64_t locations() const { return locations_.size(); }
  uint64_t locks() const { return locks_.size(); }

 private:
  struct RecentKey {
    uint64_t key = 0;
    bool valid = false;
  };

  // Puts `key` in `set` unless `recent`, its slot in a direct-mapped cache of
  // keys counted already, holds it.
  [[gnu::always_inline]] static void Add(RecentKey* recent, uint64_t key, FlatSet64* set) {
    if (recent->valid && recent->key == key) return;
    *recent = {key, true};
    set->Insert(key);
  }

  static constexpr size_t kRecentObjects = 8192;
  static constexpr int kRecentPcBits = 10;
  static constexpr size_t kRecentLocks = 1024;
  FlatSet64 variables_{FlatSet64::Keys::kAddresses}, locations_, locks_;
  std::array<RecentKey, kRecentObjects> recent_objects_{};
  std::array<RecentKey, size_t{1} << kRecentPcBits> recent_pcs_{};
  std::array<RecentKey, kRecentLocks> recent_locks_{};
};

}  // namespace seer::store
