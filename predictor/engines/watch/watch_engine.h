// The races the recording caught in the act (seer record --watch): each
// kWatchHit with the kWatchSample before it in its thread is a race that
// happened, both threads at the same bytes while the first was held by a
// hardware watchpoint (runtime/watchpoints.h). Nothing is predicted: the engine
// reads the pairs out of the trace, groups them by their two pcs, and counts
// the samples whose value changed with no thread seen (WatchHit::kUnseenWrite).
#pragma once

#include <memory>

#include "predictor/engine.h"

namespace seer::predictor {

std::unique_ptr<Engine> NewWatchEngine(const AnalysisOptions& options);

}  // namespace seer::predictor
