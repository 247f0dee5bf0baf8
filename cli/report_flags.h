// The report options `seer analyze` and `seer merge` share, and the last step
// of both: the report of the analysed trace written where they say, and the
// exit status --fail-on-findings asks for. One place, so that the two commands
// cannot drift apart: `seer merge` must write what `seer analyze` would.
#pragma once

#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "cli/analysis_steps.h"

namespace seer::cli {

struct ReportFlags {
  std::string format = "text";
  std::string output;  // empty or "-": stdout
  std::string source_root;
  std::vector<std::string> binary_dirs;
  bool no_symbolize = false;
  bool lockset_warnings = false;
  bool fail_on_findings = false;
};

// Registers --format, --source-root, -o/--output (described as `output_help`
// says), --binary-dir, --no-symbolize, --lockset-warnings and
// --fail-on-findings on `cmd`.
void AddReportFlags(CLI::App* cmd, const std::string& output_help, ReportFlags* flags);

// Renders the report of `analyzed` (the analyses `names`), writes it, and
// returns the exit status: kExitFindings when asked to and anything was found.
// `analyses_picked`: the user named the analyses (the heuristic lockset pairs
// are then listed, not counted: a user who picks the analyses reads what they
// give).
int WriteReport(const ReportFlags& flags, AnalyzedTrace* analyzed, const std::vector<std::string>& names,
                bool analyses_picked);

}  // namespace seer::cli
