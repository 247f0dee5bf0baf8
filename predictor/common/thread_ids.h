// Engines index per-thread state by Event::tid (and fork/join targets), which the
// trace contract says are dense. A trace that breaks this must not make an engine
// allocate gigabytes: events naming a thread id at or beyond kMaxThreads are
// skipped, and Finish reports the first one as corruption (exit code 2).
#pragma once

#include <cstdint>
#include <string>

#include "seer/event.h"
#include "seer/status.h"

namespace seer {

inline constexpr uint32_t kMaxThreads = 1u << 16;

class ThreadIdCheck {
 public:
  bool Accept(const Event& e) {
    if (e.tid < kMaxThreads && (!IsThreadEvent(e.kind) || e.object < kMaxThreads)) return true;
    if (first_bad_.ok())
      first_bad_ = Status::Corruption("event " + std::to_string(e.index) + ": thread id " +
                                      std::to_string(IsThreadEvent(e.kind) ? std::max<uint64_t>(e.tid, e.object) : e.tid) +
                                      " is not a dense thread id (limit " + std::to_string(kMaxThreads) + ")");
    return false;
  }
  const Status& status() const { return first_bad_; }

 private:
  Status first_bad_;
};

}  // namespace seer
