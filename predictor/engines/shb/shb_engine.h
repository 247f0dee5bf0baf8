// Schedulable happens-before (SHB): HB plus an edge from each read's last write
// to the read (Mathur, Kini, Viswanathan, OOPSLA 2018). Every race it reports can
// happen in a reordering of the run. Shares its implementation with HB.
#pragma once

#include <memory>

#include "predictor/engine.h"

namespace seer::predictor {

std::unique_ptr<Engine> NewShbEngine(const AnalysisOptions& options);

}  // namespace seer::predictor
