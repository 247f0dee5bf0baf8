// `seer merge PART...`: joins the partial results of `seer analyze --shard I/N`
// into the report one `seer analyze` with the same options would have written
// (docs/analyses.md, "Shards"). The trace is read again for the report's names
// and stacks: at the path the parts name, or --trace.
#include <memory>
#include <string>
#include <vector>

#include "cli/analysis_steps.h"
#include "cli/commands.h"
#include "cli/output.h"
#include "predictor/partial_file.h"
#include "predictor/report/report.h"
#include "predictor/shard.h"

namespace seer::cli {
namespace {

struct MergeCommandOptions {
  std::vector<std::string> parts;
  std::string trace;
  std::string format = "text";
  std::string output;
  std::string source_root;
  bool fail_on_findings = false;
  std::vector<std::string> binary_dirs;
  bool no_symbolize = false;
  bool lockset_warnings = false;
};

int RunMerge(const MergeCommandOptions& o) {
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
  steps.symbolize = !o.no_symbolize;
  steps.binary_dirs = o.binary_dirs;
  s = SymbolizeFindings(input, steps, &analyzed);
  if (!s.ok()) return Fail(s);
  predictor::ReportOptions report_options;
  report_options.source_root = o.source_root;
  // As `seer analyze` decides it: the analyses were picked when a list was given.
  report_options.list_heuristic = o.lockset_warnings || !parts[0].analysis_list.empty();
  std::string report;
  s = RenderReport(o.format, &analyzed, parts[0].analyses, report_options, &report);
  if (!s.ok()) return Fail(s.WithContext("writing the report"));
  s = WriteOutput(o.output, report);
  if (!s.ok()) return Fail(s);
  if (o.fail_on_findings && predictor::CountFindings(analyzed.run.findings) > 0) return kExitFindings;
  return kExitOk;
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
  cmd->add_option("--format", o->format, "report format")
      ->check(CLI::IsMember({"text", "json", "sarif", "html"}))
      ->capture_default_str();
  cmd->add_option("--source-root", o->source_root, "as for `seer analyze`");
  cmd->add_option("-o,--output", o->output, "file to write the report to (default: stdout)");
  cmd->add_option("--binary-dir", o->binary_dirs, "as for `seer analyze`; repeatable");
  cmd->add_flag("--no-symbolize", o->no_symbolize, "report pcs only: no stacks, source lines or variables");
  cmd->add_flag("--lockset-warnings", o->lockset_warnings, "as for `seer analyze`");
  cmd->add_flag("--fail-on-findings", o->fail_on_findings, "exit with 1 when anything is reported");
  cmd->callback([o, &runner] { runner.run = [o] { return RunMerge(*o); }; });
}

}  // namespace seer::cli
