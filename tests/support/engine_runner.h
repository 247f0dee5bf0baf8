// Runs one registered engine over an in-memory trace and returns its findings,
// for tests that compare engines with each other or with the oracle.
#pragma once

#include <set>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "predictor/engine.h"
#include "seer/event.h"

namespace seer::test {

// Throws std::runtime_error when the engine is not registered or fails (tests only).
inline predictor::Findings RunEngine(const std::string& name, const std::vector<Event>& events,
                                     const predictor::AnalysisOptions& options = {}) {
  const predictor::EngineSpec* spec = predictor::FindEngine(name);
  if (spec == nullptr) throw std::runtime_error("engine not registered: " + name);
  auto engine = spec->create(options);
  TraceInfo info;
  info.counters.events = events.size();
  Status s = engine->Begin(info);
  if (!s.ok()) throw std::runtime_error(name + ": " + s.ToString());
  engine->Process(events.data(), events.size());
  predictor::Findings findings;
  s = engine->Finish(&findings);
  if (!s.ok()) throw std::runtime_error(name + ": " + s.ToString());
  return findings;
}

// The (pc, pc) pairs, smaller first, of the engine's first race result.
inline std::set<std::pair<uint64_t, uint64_t>> RacePcPairs(const predictor::Findings& f) {
  std::set<std::pair<uint64_t, uint64_t>> out;
  if (f.races.empty()) return out;
  for (const auto& p : f.races[0].pairs) out.insert(std::minmax(p.first.pc, p.second.pc));
  return out;
}

}  // namespace seer::test
