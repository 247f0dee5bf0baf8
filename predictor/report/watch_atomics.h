// Caught races on atomic variables, set aside before the reports.
//
// In a program without hooks (sampled by the preloaded runtime's timer:
// runtime/access_sampler.h) a relaxed atomic load or store is the same plain
// move as any other access, and the sampler cannot tell them apart: a value
// that changed under a held relaxed load is no data race. The program's debug
// information can tell (Symbolizer::IsAtomicAt): such pairs of the watch
// engine are taken out of its races and counted in its work line as "on
// atomic variables (DWARF), not races". What has no debug information, or
// lives outside a global (heap, stack), stays reported: docs/recording.md says
// so.
#pragma once

#include "predictor/findings.h"

namespace seer::predictor {

class Symbolizer;

// Returns how many pairs were set aside.
size_t SetAsideAtomicWatchHits(Symbolizer& symbolizer, Findings* findings);

}  // namespace seer::predictor
