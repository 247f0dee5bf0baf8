#include "cli/report_flags.h"

#include "cli/command.h"
#include "cli/output.h"

namespace seer::cli {

void AddReportFlags(CLI::App* cmd, const std::string& output_help, ReportFlags* flags) {
  cmd->add_option("--format", flags->format, "report format")
      ->check(CLI::IsMember({"text", "json", "sarif", "html"}))
      ->capture_default_str();
  cmd->add_option(
      "--source-root", flags->source_root,
      "sarif: source paths are written relative to this folder; html: relative source paths are read from it "
      "(default: the current folder)");
  cmd->add_option("-o,--output", flags->output, output_help);
  cmd->add_option("--binary-dir", flags->binary_dirs,
                  "folder to look in (by file name and build-id) for a recorded binary that moved or changed; "
                  "repeatable");
  cmd->add_flag("--no-symbolize", flags->no_symbolize, "report pcs only: no stacks, source lines or variables");
  cmd->add_flag("--lockset-warnings", flags->lockset_warnings,
                "text report: list the race pairs only the lockset heuristic reports (default: one line counts them; "
                "also listed when --analysis is given)");
  cmd->add_flag("--fail-on-findings", flags->fail_on_findings, "exit with 1 when anything is reported");
}

int WriteReport(const ReportFlags& flags, AnalyzedTrace* analyzed, const std::vector<std::string>& names,
                bool analyses_picked) {
  predictor::ReportOptions report_options;
  report_options.source_root = flags.source_root;
  report_options.list_heuristic = flags.lockset_warnings || analyses_picked;
  std::string report;
  Status s = RenderReport(flags.format, analyzed, names, report_options, &report);
  if (!s.ok()) return Fail(s.WithContext("writing the report"));
  s = WriteOutput(flags.output, report);
  if (!s.ok()) return Fail(s);
  if (flags.fail_on_findings && predictor::CountFindings(analyzed->run.findings) > 0) return kExitFindings;
  return kExitOk;
}

}  // namespace seer::cli
