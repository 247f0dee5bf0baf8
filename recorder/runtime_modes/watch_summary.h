// What the watchpoints of a recording did (seer record --watch): one line for
// the trace's record.watch metadata and seer record's summary.
#pragma once

#include <string>

#include "recorder/recorder.h"
#include "seer/ring_layout.h"

namespace seer::recorder {

// "4 watches at once, <hardware and software, or software only and why>;
// samples held D us within P% of each thread's time: S samples, C races
// caught, B skipped".
std::string WatchSummary(const rt::ShmHeader& shm, const InprocOptions& options);

}  // namespace seer::recorder
