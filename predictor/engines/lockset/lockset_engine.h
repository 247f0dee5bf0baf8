// Lockset race detection (Eraser, Savage et al. 1997): a location whose accesses
// share no common lock violates the locking discipline. Two flavours, chosen by
// AnalysisOptions::rapid_compatible: RAPID's LockSet (candidate set seeded at the
// first access, a per-thread lock standing for ownership, reads-only locations
// exempt), or Eraser's state machine (virgin, exclusive, shared, shared-modified).
#pragma once

#include <memory>

#include "predictor/engine.h"

namespace seer::predictor {

std::unique_ptr<Engine> NewLocksetEngine(const AnalysisOptions& options);

}  // namespace seer::predictor
