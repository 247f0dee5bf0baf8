// Helpers for the engine tests: run a registered engine over in-memory events,
// and read/write RAPID's STD format (thread|op(arg)|location), so that the same
// traces can be given to RAPID and to seer.
#pragma once

#include <cstdint>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "predictor/engine.h"
#include "seer/event.h"
#include "tests/support/trace_builder.h"

namespace seer::test {

inline predictor::RaceResult RunEngine(const std::string& name, const std::vector<Event>& events, const TraceInfo& info,
                                       const predictor::AnalysisOptions& options = predictor::AnalysisOptions()) {
  const predictor::EngineSpec* spec = predictor::FindEngine(name);
  if (spec == nullptr) throw std::invalid_argument("no engine " + name);
  std::unique_ptr<predictor::Engine> engine = spec->create(options);
  if (!engine->Begin(info).ok()) throw std::runtime_error("Begin failed");
  // Feed in batches, as the driver does, to exercise state kept across batches.
  for (size_t i = 0; i < events.size(); i += 4096)
    engine->Process(events.data() + i, std::min<size_t>(4096, events.size() - i));
  predictor::Findings findings;
  if (!engine->Finish(&findings).ok() || findings.races.size() != 1) throw std::runtime_error("Finish failed");
  return findings.races[0];
}

inline predictor::RaceResult RunEngine(const std::string& name, const TraceBuilder& b,
                                       const predictor::AnalysisOptions& options = predictor::AnalysisOptions()) {
  return RunEngine(name, b.events(), b.Info(), options);
}

// Reads an STD file into a builder (names keep their first-use ids).
inline TraceBuilder LoadStd(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot open " + path);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);)
    if (!line.empty() && line[0] != '#') lines.push_back(line);
  TraceBuilder b;
  b.Std(lines);
  return b;
}

// STD text of a trace that uses only r, w, acq, rel, fork, join.
inline std::string ToStd(const std::vector<Event>& events) {
  std::ostringstream out;
  for (const Event& e : events) {
    out << 'T' << e.tid << '|';
    switch (e.kind) {
      case EventKind::kRead: out << "r(V" << e.object << ')'; break;
      case EventKind::kWrite: out << "w(V" << e.object << ')'; break;
      case EventKind::kAcquire: out << "acq(L" << e.object << ')'; break;
      case EventKind::kRelease: out << "rel(L" << e.object << ')'; break;
      case EventKind::kFork: out << "fork(T" << e.object << ')'; break;
      case EventKind::kJoin: out << "join(T" << e.object << ')'; break;
      default: throw std::invalid_argument("kind without STD form");
    }
    out << '|' << e.pc << '\n';
  }
  return out.str();
}

}  // namespace seer::test
