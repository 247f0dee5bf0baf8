// `seer export T.seer --format std [-o FILE]`: writes a trace as STD text.
#include <memory>

#include <fmt/format.h>

#include "cli/commands.h"
#include "cli/output.h"
#include "cli/progress.h"
#include "interop/std_export.h"

namespace seer::cli {
namespace {

struct ExportOptions {
  std::string input;
  std::string format = "std";
  std::string output;
};

int RunExport(const ExportOptions& o) {
  std::unique_ptr<TraceReader> reader;
  Status s = TraceReader::Open(o.input, &reader);
  if (!s.ok()) return Fail(s);
  Output out;
  s = out.Open(o.output);
  if (!s.ok()) return Fail(s);
  ExportStats stats;
  {
    Progress progress("events", reader->info().counters.events);
    s = ExportStd(reader.get(), out.file(), &stats, progress.Callback());
  }
  if (s.ok()) s = out.Close();
  if (!s.ok()) return Fail(s);
  if (stats.lossy_events > 0)
    Warn(fmt::format("{} accesses of other than one byte in a trace without addresses: their size is kept, but "
                     "import does not restore which variables overlap",
                     stats.lossy_events));
  if (const uint64_t lost = reader->info().counters.TotalLost(); lost > 0)
    Warn(fmt::format("the trace lost {} events while recording; STD text has no place to say so", lost));
  if (stats.nonblocking_acquires > 0)
    Warn(fmt::format("{} trylock or timed acquires were written as plain `acq` (STD has no trylock): after import "
                     "they count as blocking, and `--analysis deadlock` may report cycles through them",
                     stats.nonblocking_acquires));
  if (stats.non_rapid_events > 0)
    Warn(fmt::format("{} events have no RAPID equivalent and were written with seer's own op names or "
                     "attributes; seer import reads them, RAPID does not",
                     stats.non_rapid_events));
  return kExitOk;
}

}  // namespace

void RegisterExport(CLI::App& app, Runner& runner) {
  auto o = std::make_shared<ExportOptions>();
  CLI::App* cmd = app.add_subcommand("export", "Write a trace as text (STD, RAPID's format)");
  cmd->add_option("trace", o->input, "trace file")->required();
  cmd->add_option("--format", o->format, "output format")->check(CLI::IsMember({"std"}))->capture_default_str();
  cmd->add_option("-o,--output", o->output, "file to write (default: stdout)");
  cmd->callback([o, &runner] { runner.run = [o] { return RunExport(*o); }; });
}

}  // namespace seer::cli
