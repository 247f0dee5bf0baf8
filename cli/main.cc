// The `seer` command: one binary, one file per subcommand.
#include <cstdio>

#include "cli/command.h"
#include "cli/commands.h"
#include "cli/heap_settings.h"

int main(int argc, char** argv) {
  if (argc > 1 && seer::cli::BuildsWindows(argv[1])) seer::cli::RestartWithHugePageHeap(argv);
  CLI::App app{
      "seer: record one run of a pthread program and predict the races, deadlocks and "
      "atomicity violations other interleavings of it could hit"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "seer 0.1.0");
  seer::cli::Runner runner;
  seer::cli::RegisterCommands(app, runner);
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    app.exit(e);
    return seer::cli::kExitError;
  }
  if (!runner.run) return seer::cli::kExitError;
  return runner.run();
}
