// The analysis driver: opens a trace, decodes it once and feeds every batch to
// every selected engine, then collects their findings. `seer analyze` is a thin
// layer over this; tests drive it with their own engines.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "predictor/engine.h"
#include "predictor/findings.h"
#include "seer/status.h"
#include "seer/trace.h"

namespace seer::predictor {

// The specs for a comma-separated list of analysis names ("hb,wcp"); an empty
// list selects every engine in the default set. An unknown name is an
// InvalidArgument listing the known ones.
Status SelectEngines(const std::string& list, std::vector<const EngineSpec*>* out);

// SelectEngines for the trace `info` describes: an empty list is the default
// set plus `watch` when the trace was recorded with --watch (meta record.watch).
Status SelectEnginesFor(const std::string& list, const TraceInfo& info, std::vector<const EngineSpec*>* out);

struct AnalysisRun {
  std::unique_ptr<TraceReader> reader;  // kept open: reports look names up in it
  Findings findings;
  uint64_t events = 0;  // events fed to the engines
  // Set before the run: each engine's findings go to by_engine (in the order
  // of the engines) instead of into `findings` (a shard keeps them apart).
  bool keep_by_engine = false;
  std::vector<Findings> by_engine;
};

// Runs `engines` over the trace at `path`. `progress`, if set, hears how far the
// engines are now and then (predictor/progress.h); `observe`, if set, every decoded batch after the
// engines (what a caller counts besides them, in the same pass). With
// options.confirm_races, SeqCheck then decides every race pair the engines
// reported (RacePair::confirmed).
Status RunAnalyses(const std::string& path, const std::vector<const EngineSpec*>& engines,
                   const AnalysisOptions& options, AnalysisRun* run, AnalysisProgress* progress = nullptr,
                   const std::function<void(const std::vector<Event>& batch)>& observe = {});

}  // namespace seer::predictor
