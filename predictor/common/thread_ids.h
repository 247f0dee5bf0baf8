// Engines index per-thread state by Event::tid (and fork/join targets), which the
// trace contract says are dense. A trace that breaks this must not make an engine
// allocate gigabytes: events naming a thread id at or beyond kMaxThreads are
// skipped, and Finish reports the first one as corruption (exit code 2).
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>

#include "seer/event.h"
#include "seer/status.h"

namespace seer::predictor {

inline constexpr uint32_t kMaxThreads = 1u << 16;

class ThreadIdCheck {
 public:
  bool Accept(const Event& e) {
    if (e.tid < kMaxThreads && (!IsThreadEvent(e.kind) || e.object < kMaxThreads)) [[likely]]
      return true;
    Reject(e);
    return false;
  }
  const Status& status() const { return first_bad_; }

 private:
  // Out of line: keeps Accept small enough to inline into every engine's loop.
  [[gnu::noinline, gnu::cold]] void Reject(const Event& e) {
    if (!first_bad_.ok()) return;
    const uint64_t id = IsThreadEvent(e.kind) ? std::max<uint64_t>(e.tid, e.object) : e.tid;
    first_bad_ = Status::Corruption("event " + std::to_string(e.index) + ": thread id " + std::to_string(id) +
                                    " is not a dense thread id (limit " + std::to_string(kMaxThreads) + ")");
  }

  Status first_bad_;
};

}  // namespace seer::predictor
