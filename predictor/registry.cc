// The catalogue of analyses. Adding an engine is adding one entry here; no other
// engine and no driver code changes.
#include "predictor/engine.h"

namespace seer {

const std::vector<EngineSpec>& Engines() {
  static const std::vector<EngineSpec> engines = {
  };
  return engines;
}

const EngineSpec* FindEngine(const std::string& name) {
  for (const auto& spec : Engines())
    if (spec.name == name) return &spec;
  return nullptr;
}

}  // namespace seer
