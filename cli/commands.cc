#include "cli/commands.h"

namespace seer::cli {

void RegisterCommands(CLI::App& app, Runner& runner) {
  RegisterRecord(app, runner);
  RegisterImport(app, runner);
  RegisterExport(app, runner);
  RegisterInfo(app, runner);
  RegisterGen(app, runner);
  RegisterAnalyze(app, runner);
  RegisterMerge(app, runner);
  RegisterFuzz(app, runner);
  RegisterDaemon(app, runner);
}

}  // namespace seer::cli
