// `atomic-blocks`: conflict serializability of the blocks the program marked
// atomic (kAtomicBegin/kAtomicEnd, STD `begin`/`end`) in the recorded run, checked
// as Velodrome does (Flanagan, Freund, Yi, PLDI 2008): a graph of transactions
// (each marked block, and each event outside a block on its own) with an edge for
// every conflict in trace order; a cycle closing on an open block means that block
// is not serializable. Not predictive: it judges the recorded interleaving.
#pragma once

#include <memory>

#include "predictor/engine.h"

namespace seer::predictor {

std::unique_ptr<Engine> NewAtomicBlocksEngine(const AnalysisOptions& options);

}  // namespace seer::predictor
