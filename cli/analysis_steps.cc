#include "cli/analysis_steps.h"

#include "cli/progress.h"
#include "predictor/report/watch_atomics.h"

namespace seer::cli {

Status AnalyzeAndSymbolize(const std::string& input, const std::vector<const predictor::EngineSpec*>& specs,
                           const AnalysisStepsOptions& options, AnalyzedTrace* out) {
  predictor::AnalysisRun* run = &out->run;
  out->symbolized = false;
  Status s;
  {
    AnalysisProgressLine progress(options.progress);
    s = predictor::RunAnalyses(input, specs, options.engine, run, &progress);
  }
  if (!s.ok()) return s;
  if (!options.symbolize || run->reader->info().modules.empty()) return Status::Ok();
  predictor::SymbolizerOptions symbols;
  symbols.binary_dirs = options.binary_dirs;
  s = predictor::CollectReportDetails(input, run->reader->info(), run->findings, symbols, &out->details);
  if (!s.ok()) return s.WithContext("collecting stacks for the findings");
  // Relaxed atomics an unmodified program's samples could not tell from plain
  // accesses: the debug information can.
  if (out->details.symbolizer != nullptr) predictor::SetAsideAtomicWatchHits(*out->details.symbolizer, &run->findings);
  out->symbolized = true;
  return Status::Ok();
}

}  // namespace seer::cli
