#include "cli/analysis_steps.h"

#include "cli/progress.h"

namespace seer::cli {

Status AnalyzeAndSymbolize(const std::string& input, const std::vector<const EngineSpec*>& specs,
                           const AnalysisStepsOptions& options, AnalysisRun* run, ReportDetails* details,
                           bool* with_details) {
  *with_details = false;
  Status s;
  {
    Progress progress("events");
    s = RunAnalyses(input, specs, options.engine, run, progress.Callback());
  }
  if (!s.ok()) return s;
  if (!options.symbolize || run->reader->info().modules.empty()) return Status::Ok();
  SymbolizerOptions symbols;
  symbols.binary_dirs = options.binary_dirs;
  s = CollectReportDetails(input, run->reader->info(), run->findings, symbols, details);
  if (!s.ok()) return s.WithContext("collecting stacks for the findings");
  *with_details = true;
  return Status::Ok();
}

}  // namespace seer::cli
