// Deadlocks that happened: at the end of the trace, threads that wait for a lock
// (a kLockRequest with nothing after it in their thread: the run ended, was
// killed or stopped while they waited) and hold locks the others wait for, in a
// cycle (one thread waiting for a lock it holds itself included). The recorded
// run is the witness. The deadlock engine predicts deadlocks from the
// acquisitions that did happen and cannot see these: a blocked request never
// became an acquire.
#pragma once

#include <memory>

#include "predictor/engine.h"

namespace seer::predictor {

std::unique_ptr<Engine> NewBlockedEngine(const AnalysisOptions& options);

}  // namespace seer::predictor
