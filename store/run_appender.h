// Taking a run of events in one call: what a trace writer offers when handing
// it events one at a time costs more than the work (a virtual call, and a copy
// of each Event between threads in AsyncTraceWriter). Store-internal: the
// in-process recording's merger produces runs, AsyncTraceWriter passes them on,
// and the LMDB writer encodes them in one loop.
#pragma once

#include <cstddef>

#include "seer/event.h"
#include "seer/status.h"

namespace seer {

class RunAppender {
 public:
  virtual ~RunAppender() = default;
  // Appends events[0..n) in order, exactly as n calls of TraceWriter::Append would.
  virtual Status AppendRun(const Event* events, size_t n) = 0;
};

}  // namespace seer
