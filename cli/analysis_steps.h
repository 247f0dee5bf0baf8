// The steps `seer analyze` and `seer export --format perfetto` share: run the
// selected analyses over a trace with a progress line, then symbolise the
// findings' stacks when the trace carries a module table.
#pragma once

#include <string>
#include <vector>

#include "predictor/analyze.h"
#include "predictor/report/details.h"
#include "seer/status.h"

namespace seer::cli {

struct AnalysisStepsOptions {
  AnalysisOptions engine;
  bool symbolize = true;                 // false: --no-symbolize
  std::vector<std::string> binary_dirs;  // where to look for binaries the trace names
};

// Runs `specs` over the trace at `input` into `run`. `*details` is filled and
// `*with_details` set when stacks were symbolised; a trace without a module
// table (an imported one) has nothing to symbolise and leaves it false.
Status AnalyzeAndSymbolize(const std::string& input, const std::vector<const EngineSpec*>& specs,
                           const AnalysisStepsOptions& options, AnalysisRun* run, ReportDetails* details,
                           bool* with_details);

}  // namespace seer::cli
