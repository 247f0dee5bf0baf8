// Lockset-W3 (the PWR relation with lockset checks; Sulzmann & Stadtmueller, MPLR
// 2020): `w3` is the exact two-pass PWR^{E+E} (all critical sections, all edges,
// candidates traversed after the trace); `w3-linear` is PWR^{LE+E} (bounded lock
// history and per-variable edges, candidates traversed as they appear).
#pragma once

#include <memory>

#include "predictor/engine.h"

namespace seer::predictor {

std::unique_ptr<Engine> CreateW3Engine(const AnalysisOptions& options);
std::unique_ptr<Engine> CreateW3LinearEngine(const AnalysisOptions& options);

}  // namespace seer::predictor
