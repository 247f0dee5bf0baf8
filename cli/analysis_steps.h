// The steps `seer analyze` and `seer export --format perfetto` share: run the
// selected analyses over a trace with a progress line, then symbolise the
// findings' stacks when the trace carries a module table.
#pragma once

#include <string>
#include <vector>

#include "cli/progress.h"
#include "predictor/analyze.h"
#include "predictor/report/details.h"
#include "predictor/report/report.h"
#include "seer/status.h"

namespace seer::cli {

struct AnalysisStepsOptions {
  predictor::AnalysisOptions engine;
  bool symbolize = true;                 // false: --no-symbolize
  std::vector<std::string> binary_dirs;  // where to look for binaries the trace names
  ProgressMode progress = ProgressMode::kTerminal;
};

struct AnalyzedTrace {
  predictor::AnalysisRun run;
  predictor::ReportDetails details;
  bool symbolized = false;  // false for a trace without a module table (an imported one)
  // What the reports take: the details, or null when nothing was symbolised.
  predictor::ReportDetails* details_or_null() { return symbolized ? &details : nullptr; }
};

// Runs `specs` over the trace at `input` and symbolises the findings' stacks.
Status AnalyzeAndSymbolize(const std::string& input, const std::vector<const predictor::EngineSpec*>& specs,
                           const AnalysisStepsOptions& options, AnalyzedTrace* out);

// The second step alone, on out->run already made (`seer merge`'s joined parts).
Status SymbolizeFindings(const std::string& input, const AnalysisStepsOptions& options, AnalyzedTrace* out);

// The report of `format` (text, json, sarif, html) on an analysed trace; the
// same for `seer analyze` and `seer merge`.
Status RenderReport(const std::string& format, AnalyzedTrace* analyzed, const std::vector<std::string>& analyses,
                    const predictor::ReportOptions& report_options, std::string* report);

}  // namespace seer::cli
