#include "cli/commands.h"

namespace seer::cli {

void RegisterCommands(CLI::App& app, Runner& runner) {
  (void)app;
  (void)runner;
  RegisterRecordCommand(app, runner);
}

}  // namespace seer::cli
