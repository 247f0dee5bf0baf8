// The subcommands of `seer`; each lives in its own file (cli/<name>_command.cc,
// or daemon/record_command.cc for `record`).
#pragma once

#include "cli/command.h"

namespace seer::cli {

// `seer record` (daemon/record_command.cc).
void RegisterRecordCommand(CLI::App& app, Runner& runner);

// Registers every subcommand (see commands.cc).
void RegisterCommands(CLI::App& app, Runner& runner);

}  // namespace seer::cli
