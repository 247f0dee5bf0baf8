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
  return SymbolizeFindings(input, options, out);
}

Status SymbolizeFindings(const std::string& input, const AnalysisStepsOptions& options, AnalyzedTrace* out) {
  predictor::AnalysisRun* run = &out->run;
  out->symbolized = false;
  if (!options.symbolize || run->reader->info().modules.empty()) return Status::Ok();
  predictor::SymbolizerOptions symbols;
  symbols.binary_dirs = options.binary_dirs;
  Status s = predictor::CollectReportDetails(input, run->reader->info(), run->findings, symbols, &out->details);
  if (!s.ok()) return s.WithContext("collecting stacks for the findings");
  // Relaxed atomics an unmodified program's samples could not tell from plain
  // accesses: the debug information can.
  if (out->details.symbolizer != nullptr) predictor::SetAsideAtomicWatchHits(*out->details.symbolizer, &run->findings);
  out->symbolized = true;
  return Status::Ok();
}

Status RenderReport(const std::string& format, AnalyzedTrace* analyzed, const std::vector<std::string>& analyses,
                    const predictor::ReportOptions& report_options, std::string* report) {
  const predictor::AnalysisRun& run = analyzed->run;
  predictor::ReportDetails* with = analyzed->details_or_null();
  if (format == "json") {
    *report = predictor::JsonReport(*run.reader, run.findings, analyses, with);
    return Status::Ok();
  }
  if (format == "sarif")
    return predictor::SarifReport(*run.reader, run.findings, analyses, with, report_options, report);
  if (format == "html") return predictor::HtmlReport(*run.reader, run.findings, analyses, with, report_options, report);
  *report = predictor::TextReport(*run.reader, run.findings, analyses, with, report_options);
  return Status::Ok();
}

}  // namespace seer::cli
