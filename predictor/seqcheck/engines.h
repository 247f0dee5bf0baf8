// The SeqCheck analyses behind the Engine interface: `deadlock` and `atomicity`.
// SeqCheck reorders the whole trace, so both keep every event until Finish.
#pragma once

#include <memory>

#include "predictor/engine.h"

namespace seer::seqcheck {

std::unique_ptr<Engine> NewDeadlockEngine(const AnalysisOptions& options);
std::unique_ptr<Engine> NewAtomicityEngine(const AnalysisOptions& options);

}  // namespace seer::seqcheck
