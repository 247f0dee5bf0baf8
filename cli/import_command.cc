// `seer import FILE.std -o T.seer`: converts an STD text trace into a trace file.
#include <fmt/format.h>
#include <unistd.h>

#include <memory>

#include "cli/commands.h"
#include "cli/output.h"
#include "cli/progress.h"
#include "interop/std_import.h"
#include "store/async_writer.h"

namespace seer::cli {
namespace {

struct ImportOptions {
  std::string input;
  std::string output;
  bool quiet = false;
};

int RunImport(const ImportOptions& o) {
  std::unique_ptr<TraceWriter> w;
  Status s = TraceWriter::Create(o.output, TraceWriterOptions(), &w);
  if (!s.ok()) return Fail(s);
  interop::ImportStats stats;
  {
    // Parsing on this thread, encoding and compressing on another.
    store::AsyncTraceWriter async(w.get());
    Progress progress("lines");
    s = interop::ImportStd(o.input, &async, &stats, progress.Callback());
    if (s.ok()) s = async.Close();
  }
  w.reset();
  if (!s.ok()) {
    unlink(o.output.c_str());  // a half-imported trace would only mislead
    return Fail(s);
  }
  if (!o.quiet)
    fmt::print("imported {} events ({} threads, {} locks, {} variables) into {}\n", stats.events, stats.threads,
               stats.locks, stats.variables, o.output);
  return kExitOk;
}

}  // namespace

void RegisterImport(CLI::App& app, Runner& runner) {
  auto o = std::make_shared<ImportOptions>();
  CLI::App* cmd = app.add_subcommand("import", "Convert an STD text trace (RAPID's format) into a seer trace");
  cmd->add_option("file", o->input, "STD trace: one `thread|op(arg)|loc` line per event")->required();
  cmd->add_option("-o,--output", o->output, "trace file to write (replaced if it exists)")->required();
  cmd->add_flag("-q,--quiet", o->quiet, "do not print the summary line");
  cmd->callback([o, &runner] { runner.run = [o] { return RunImport(*o); }; });
}

}  // namespace seer::cli
