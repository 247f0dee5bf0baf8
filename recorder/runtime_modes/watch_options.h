// The share of each thread's time the watchpoints may hold it (seer record
// --watch[=PERCENT], seer daemon's `watch`), read once for both.
#pragma once

#include <string>

#include "recorder/recorder.h"
#include "seer/status.h"

namespace seer::recorder {

// "" (the default, 2), "5", "0.5" or "5%": a percentage from 0.1 to 50.
Status ParseWatchShare(const std::string& text, double* percent);

// Turns the watchpoints on in `options` at `percent` of each thread's time.
void EnableWatch(double percent, InprocOptions* options);

}  // namespace seer::recorder
