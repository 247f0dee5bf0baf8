// A trace as a timeline: Chrome trace-event JSON, which Perfetto's UI (and
// chrome://tracing) opens. One track per thread, named; lock hold spans,
// condition waits, the thread's life; fork and join as flows; findings as
// instant events on the threads of their events; lock waits (lock_wait events)
// as spans before the hold they lead to. Timestamps are the events' times from
// the trace's clock samples (store/trace_clock.h, precise to about a drain
// round); a trace without samples (imported, generated) gets the event's
// position in the total order instead (1 µs each).
#pragma once

#include <cstdint>
#include <limits>
#include <string>

#include "predictor/findings.h"
#include "seer/status.h"

namespace seer::predictor {

struct ReportDetails;  // predictor/report/details.h

struct TimelineOptions {
  uint64_t from = 0;                                   // first trace position of the window
  uint64_t to = std::numeric_limits<uint64_t>::max();  // one past the last
  // A window by time instead, in ns after the recording started (negative:
  // not given): from the first event at or after from_ns to the last before
  // to_ns. Needs a trace with clock samples.
  double from_ns = -1;
  double to_ns = -1;
  // Most trace events a window may hold: the output (and the viewer's memory)
  // grows with it, so a larger window is refused with a message saying how to
  // narrow it.
  uint64_t max_events = 2'000'000;
};

// Reads the trace at `path` once and writes the timeline of the window to *out.
// `details` (may be null) names lock addresses and sites by their symbols.
Status PerfettoTimeline(const std::string& path, const Findings& findings, ReportDetails* details,
                        const TimelineOptions& options, std::string* out);

}  // namespace seer::predictor
