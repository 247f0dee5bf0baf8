// `seer merge PART...`: joins the partial results of `seer analyze --shard I/N`
// into the report one `seer analyze` with the same options would have written
// (docs/analyses.md, "Shards"). The trace is read again for the report's names
// and stacks: at the path the parts name, or --trace.
#include <memory>
#include <string>
#include <vector>

#include "cli/analysis_steps.h"
#include "cli/commands.h"
#include "cli/heap_settings.h"
#include "cli/output.h"
#include "cli/report_flags.h"
#include "predictor/partial_file.h"
#include "predictor/shard.h"

namespace seer::cli {
namespace {

struct MergeCommandOptions {
  std::vector<std::string> parts;
  std::string trace;
  ReportFlags report;
};

int RunMerge(const MergeCommandOptions& o) {
  KeepFreedMemoryForTheNextWindow();  // it may decide windows again
  OneHeapForAllThreads();
  std::vector<predictor::PartialResult> parts(o.parts.size());
  for (size_t i = 0; i < o.parts.size(); ++i) {
    Status s = predictor::ReadPartial(o.parts[i], &parts[i]);
    if (!s.ok()) return Fail(s);
  }
  AnalyzedTrace analyzed;
  Status s = predictor::MergeParts(parts, o.parts, o.trace, &analyzed.run);
  if (!s.ok()) return Fail(s);
  const std::string input = analyzed.run.reader->info().path;
  AnalysisStepsOptions steps;
  steps.symbolize = !o.report.no_symbolize;
  steps.binary_dirs = o.report.binary_dirs;
  s = SymbolizeFindings(input, steps, &analyzed);
  if (!s.ok()) return Fail(s);
  // As `seer analyze` decided it: the analyses were picked when a list was given.
  return WriteReport(o.report, &analyzed, parts[0].analyses, /*analyses_picked=*/!parts[0].analysis_list.empty());
}

}  // namespace

void RegisterMerge(CLI::App& app, Runner& runner) {
  auto o = std::make_shared<MergeCommandOptions>();
  CLI::App* cmd =
      app.add_subcommand("merge", "Join the parts of seer analyze --shard I/N into the report one seer analyze writes");
  cmd->add_option("parts", o->parts, "the N partial results, shards 0..N-1 once each, in any order")->required();
  cmd->add_option("--trace", o->trace,
                  "the trace the parts were made of, when it is not at the path they name (a copy: same size and "
                  "contents; the report names this path)");
  AddReportFlags(cmd, "file to write the report to (default: stdout)", &o->report);
  cmd->callback([o, &runner] { runner.run = [o] { return RunMerge(*o); }; });
}

}  // namespace seer::cli
