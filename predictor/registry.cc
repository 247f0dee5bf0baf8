// The catalogue of analyses. Adding an engine is adding one entry here; no other
// engine and no driver code changes.
#include "predictor/engine.h"
#include "predictor/hb/hb_engine.h"
#include "predictor/lockset/lockset_engine.h"
#include "predictor/shb/shb_engine.h"
#include "predictor/wcp/wcp_engine.h"

namespace seer {

const std::vector<EngineSpec>& Engines() {
  static const std::vector<EngineSpec> engines = {
      {"hb", "happens-before races (vector clocks, FastTrack epochs); the first race is real", true, NewHbEngine},
      {"shb", "schedulable happens-before: HB plus last-write-to-read edges; every race is real", true, NewShbEngine},
      {"wcp", "weak causally-precedes (Kini et al. PLDI'17): more races than HB; the first is real or a deadlock", true,
       NewWcpEngine},
      {"lockset", "Eraser-style lockset discipline (as RAPID's LockSet): fast, neither sound nor complete", true,
       NewLocksetEngine},
  };
  return engines;
}

const EngineSpec* FindEngine(const std::string& name) {
  for (const auto& spec : Engines())
    if (spec.name == name) return &spec;
  return nullptr;
}

}  // namespace seer
