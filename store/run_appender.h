// Taking a run of events in one call: what a trace writer offers when handing
// it events one at a time costs more than the work (a virtual call, and a copy
// of each Event between threads in AsyncTraceWriter). Store-internal: the
// in-process recording's merger produces runs, AsyncTraceWriter passes them on,
// and the LMDB writer encodes them in one loop.
#pragma once

#include <cstddef>
#include <memory>

#include "seer/event.h"
#include "seer/status.h"
#include "store/repeated_run.h"

namespace seer::store {

class RunAppender {
 public:
  virtual ~RunAppender() = default;
  // Appends events[0..n) in order, exactly as n calls of TraceWriter::Append would.
  virtual Status AppendRun(const Event* events, size_t n) = 0;

  // The same for a run that repeats, event for event, one appended before:
  // one thread's accesses between two of its synchronisation events, the same
  // as last time (RingMerger recognises them in the ring's words). It brings
  // no thread, variable, location or lock that was not counted already, so a
  // writer may count it by its kinds alone, keep the pointer instead of a
  // copy, and encode it from what it kept of the last one
  // (ChunkEncoder::AddRepeat). The caller must have appended these very
  // events before.
  virtual Status AppendRepeat(const std::shared_ptr<const RepeatedRun>& run) {
    return AppendRun(run->events.data(), run->events.size());
  }
};

}  // namespace seer::store
