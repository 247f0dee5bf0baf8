// Export of a seer trace as STD text. Traces imported from STD come back byte for
// byte; kinds RAPID lacks are written with seer's own op names, and what a RAPID
// line cannot hold (sizes, addresses, lock modes, memory orders, the mutex of a
// cond wait) as attributes (docs/trace-format.md), so engines give the same
// results on the exported and re-imported trace.
#pragma once

#include <cstdint>
#include <cstdio>
#include <functional>

#include "seer/status.h"
#include "seer/trace.h"

namespace seer::interop {

struct ExportStats {
  uint64_t events = 0;
  uint64_t lossy_events = 0;          // accesses of other than one byte in a trace without addresses:
                                      // import does not restore their overlaps
  uint64_t non_rapid_events = 0;      // lines with seer-only ops or attributes, which RAPID cannot read
  uint64_t nonblocking_acquires = 0;  // trylock / timed acquires written as plain `acq`: import
                                      // reads them as blocking (deadlock reports may differ)
};

// Writes every event of `reader` to `out`. `progress`, if set, gets the number
// of events written now and then.
Status ExportStd(TraceReader* reader, std::FILE* out, ExportStats* stats,
                 const std::function<void(uint64_t events)>& progress = {});

}  // namespace seer::interop
