#include "predictor/engines/shb/shb_engine.h"

#include "predictor/engines/hb/hb_engine.h"

namespace seer::predictor {

std::unique_ptr<Engine> NewShbEngine(const AnalysisOptions&) { return std::make_unique<HappensBeforeEngine<true>>(); }

}  // namespace seer::predictor
