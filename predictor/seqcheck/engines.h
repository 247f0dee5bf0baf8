// The SeqCheck analyses behind the Engine interface: `deadlock` and `atomicity`.
// SeqCheck reorders what it holds in memory, so both keep the events of a window
// (AnalysisOptions::seqcheck_window; trace_windows.h) and decide it as it closes.
#pragma once

#include <memory>

#include "predictor/engine.h"

namespace seer::predictor::seqcheck {

std::unique_ptr<Engine> NewDeadlockEngine(const AnalysisOptions& options);
std::unique_ptr<Engine> NewAtomicityEngine(const AnalysisOptions& options);

}  // namespace seer::predictor::seqcheck
