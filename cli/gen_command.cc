// `seer gen ...`: writes a synthetic, well-formed trace (tools/gen/generator.h),
// as a trace file or as STD text.
#include <unistd.h>

#include <memory>

#include "cli/commands.h"
#include "cli/output.h"
#include "cli/progress.h"
#include "gen/generator.h"
#include "interop/std_writer.h"
#include "store/async_writer.h"

namespace seer::cli {
namespace {

struct GenCommandOptions {
  gen::GenOptions gen;
  std::string output;
  std::string format = "seer";
};

int RunGen(const GenCommandOptions& o) {
  Status s = gen::ValidateGenOptions(o.gen);
  if (!s.ok()) return Fail(s);
  if (o.format == "std") {
    Output out;
    s = out.Open(o.output);
    if (!s.ok()) return Fail(s);
    interop::StdTextWriter w(out.file());
    {
      store::AsyncTraceWriter async(&w);  // formatting on a second thread
      Progress progress("events", o.gen.events);
      s = gen::Generate(o.gen, &async, progress.Callback());
      if (s.ok()) s = async.Close();
    }
    if (s.ok()) s = out.Close();
    if (!s.ok()) return Fail(s.WithContext(o.output.empty() ? "stdout" : o.output));
    return kExitOk;
  }
  if (o.output.empty() || o.output == "-")
    return Fail(
        Status::InvalidArgument("a trace file needs a path: -o FILE.seer (or --format std for text on stdout)"));
  std::unique_ptr<TraceWriter> w;
  s = TraceWriter::Create(o.output, TraceWriterOptions(), &w);
  if (!s.ok()) return Fail(s);
  {
    store::AsyncTraceWriter async(w.get());  // encoding and compressing on a second thread
    Progress progress("events", o.gen.events);
    s = gen::Generate(o.gen, &async, progress.Callback());
    if (s.ok()) s = async.Close();
  }
  w.reset();
  if (!s.ok()) {
    unlink(o.output.c_str());
    return Fail(s);
  }
  return kExitOk;
}

}  // namespace

void RegisterGen(CLI::App& app, Runner& runner) {
  auto o = std::make_shared<GenCommandOptions>();
  gen::GenOptions& g = o->gen;
  CLI::App* cmd = app.add_subcommand("gen", "Generate a synthetic, well-formed trace (for tests and benchmarks)");
  cmd->add_option("--events", g.events, "number of events")->capture_default_str();
  cmd->add_option("--threads", g.threads, "threads; thread 0 forks the others first and joins them last")
      ->capture_default_str();
  cmd->add_option("--locks", g.locks, "locks")->capture_default_str();
  cmd->add_option("--vars", g.variables, "variables")->capture_default_str();
  cmd->add_option("--locations", g.locations, "access sites, each tied to one variable and kind")
      ->capture_default_str();
  cmd->add_option("--seed", g.seed, "random seed: the same seed gives the same trace")->capture_default_str();
  cmd->add_option("--protected-fraction", g.protected_fraction, "share of access blocks run under locks")
      ->capture_default_str();
  cmd->add_option("--write-fraction", g.write_fraction, "share of access sites that write")->capture_default_str();
  cmd->add_option("--max-nesting", g.max_nesting, "locks held at once, at most")->capture_default_str();
  cmd->add_option("--random-order-fraction", g.random_order_fraction,
                  "share of blocks taking their nested locks in random instead of id order")
      ->capture_default_str();
  cmd->add_option("--max-block", g.max_block, "accesses per block, at most")->capture_default_str();
  cmd->add_option("-o,--output", o->output, "file to write (STD text: default stdout)");
  cmd->add_option("--format", o->format, "seer (a trace file) or std (text)")
      ->check(CLI::IsMember({"seer", "std"}))
      ->capture_default_str();
  cmd->callback([o, &runner] { runner.run = [o] { return RunGen(*o); }; });
}

}  // namespace seer::cli
