// The subcommands of `seer`; each lives in its own file, cli/<name>_command.cc.
#pragma once

#include "cli/command.h"

namespace seer::cli {

// Registers every subcommand (see commands.cc).
void RegisterCommands(CLI::App& app, Runner& runner);

void RegisterRecord(CLI::App& app, Runner& runner);   // cli/record_command.cc
void RegisterImport(CLI::App& app, Runner& runner);   // cli/import_command.cc
void RegisterExport(CLI::App& app, Runner& runner);   // cli/export_command.cc
void RegisterInfo(CLI::App& app, Runner& runner);     // cli/info_command.cc
void RegisterGen(CLI::App& app, Runner& runner);      // cli/gen_command.cc
void RegisterAnalyze(CLI::App& app, Runner& runner);  // cli/analyze_command.cc
void RegisterMerge(CLI::App& app, Runner& runner);    // cli/merge_command.cc
void RegisterFuzz(CLI::App& app, Runner& runner);     // cli/fuzz_command.cc
void RegisterDaemon(CLI::App& app, Runner& runner);   // cli/daemon_command.cc

}  // namespace seer::cli
