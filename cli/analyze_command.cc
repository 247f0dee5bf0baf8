// `seer analyze T.seer`: runs the selected analyses over one decode of the trace
// and reports their findings as text, JSON, SARIF or an HTML page.
#include <sched.h>

#include <algorithm>
#include <memory>
#include <thread>

#include "cli/analysis_steps.h"
#include "cli/commands.h"
#include "cli/heap_settings.h"
#include "cli/output.h"
#include "cli/report_flags.h"
#include "predictor/analyze.h"
#include "predictor/partial_file.h"
#include "predictor/shard.h"

namespace seer::cli {
namespace {

struct AnalyzeCommandOptions {
  std::string input;
  std::string analyses;
  std::string shard;  // --shard I/N
  ReportFlags report;
  ProgressMode progress = ProgressMode::kTerminal;
  predictor::AnalysisOptions engine;
};

// --shard I/N: one part of the analysis, written as a partial result for `seer merge`.
int RunShardOfAnalysis(const AnalyzeCommandOptions& o, const std::vector<const predictor::EngineSpec*>& specs) {
  predictor::ShardSpec shard;
  Status s = predictor::ParseShard(o.shard, &shard);
  if (!s.ok()) return Fail(s);
  if (o.report.output.empty() || o.report.output == "-")
    return Fail(Status::InvalidArgument("--shard writes a partial result: give its file with -o PART"));
  predictor::PartialResult part;
  {
    AnalysisProgressLine progress(o.progress);
    s = predictor::RunShard(o.input, o.analyses, specs, o.engine, shard, &part, &progress);
  }
  if (!s.ok()) return Fail(s);
  s = predictor::WritePartial(o.report.output, part);
  if (!s.ok()) return Fail(s);
  return kExitOk;
}

int RunAnalyze(const AnalyzeCommandOptions& o) {
  KeepFreedMemoryForTheNextWindow();
  OneHeapForAllThreads();  // before --jobs starts its threads
  std::vector<const predictor::EngineSpec*> specs;
  Status s;
  {
    // The trace's own metadata decides the engines some traces add (watch).
    std::unique_ptr<TraceReader> reader;
    s = TraceReader::Open(o.input, &reader);
    if (!s.ok()) return Fail(s);
    s = predictor::SelectEnginesFor(o.analyses, reader->info(), &specs);
  }
  if (!s.ok()) return Fail(s);
  if (!o.shard.empty()) return RunShardOfAnalysis(o, specs);
  std::vector<std::string> names;
  for (const predictor::EngineSpec* spec : specs) names.push_back(spec->name);

  AnalyzedTrace analyzed;
  s = AnalyzeAndSymbolize(o.input, specs, {o.engine, !o.report.no_symbolize, o.report.binary_dirs, o.progress},
                          &analyzed);
  if (!s.ok()) return Fail(s);
  const int status = WriteReport(o.report, &analyzed, names, /*analyses_picked=*/!o.analyses.empty());
  if (specs.empty()) Warn("no analysis selected: this build has no engine in its default set");
  return status;
}

// The CPUs this process may run on (its affinity mask: a container's or
// taskset's share of the machine, not the machine's count).
unsigned UsableCpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof(set), &set) == 0 && CPU_COUNT(&set) > 0)
    return static_cast<unsigned>(CPU_COUNT(&set));
  return std::max(1u, std::thread::hardware_concurrency());
}

std::string EngineList() {
  std::string list;
  for (const predictor::EngineSpec& spec : predictor::Engines())
    list += "\n  " + spec.name + (spec.in_default_set ? " (default)" : "") + ": " + spec.summary;
  return list.empty() ? "\n  (none in this build)" : list;
}

}  // namespace

void RegisterAnalyze(CLI::App& app, Runner& runner) {
  auto o = std::make_shared<AnalyzeCommandOptions>();
  CLI::App* cmd = app.add_subcommand("analyze", "Predict races, deadlocks and atomicity violations in a trace");
  cmd->footer("Analyses:" + EngineList());
  cmd->add_option("trace", o->input, "trace file")->required();
  cmd->add_option("-a,--analysis", o->analyses, "comma-separated analyses (default: the default set)");
  cmd->add_option("--shard", o->shard,
                  "I/N: analyse part I (0..N-1) of the work, written with -o as a partial result that `seer merge` "
                  "joins with the other N-1 into this report (docs/analyses.md, \"Shards\")");
  AddReportFlags(cmd, "file to write the report to (default: stdout; with --shard: the part)", &o->report);
  cmd->add_option("--atomicity-window", o->engine.atomicity_window,
                  "atomicity: max events of a thread between its two accesses")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  cmd->add_flag(
      "--confirm-races", o->engine.confirm_races,
      "re-check every reported race pair with SeqCheck (confirmed: a validated witness reaches both accesses)");
  cmd->add_option(
         "--confirm-races-max-events", o->engine.confirm_races_max_events,
         "--confirm-races: longest trace it accepts (it holds the whole trace in memory, up to 1.3 KB an event)")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  cmd->add_option("--w3-history", o->engine.w3_history,
                  "w3-linear: critical sections kept per lock and thread (0: all)")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  cmd->add_option("--w3-edges", o->engine.w3_edges, "w3-linear: accesses per variable whose edges it keeps")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  cmd->add_flag_callback(
      "--paper", [o] { o->engine.rapid_compatible = false; },
      "wcp and lockset follow the papers where RAPID's implementation departs from them");
  cmd->add_option("--deadlock-max-cycle", o->engine.deadlock_max_cycle, "deadlock: most threads in a lock cycle")
      ->check(CLI::Range(2u, 64u))
      ->capture_default_str();
  cmd->add_option("--deadlock-max-checks", o->engine.deadlock_max_checks,
                  "deadlock: most SeqCheck checks over the whole trace")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  cmd->add_option("--seqcheck-window", o->engine.seqcheck_window,
                  "deadlock, atomicity: events SeqCheck holds in memory at once (0.2 to 1.3 KB each); a longer "
                  "trace is decided window by window, missing patterns that span two windows (0: the whole trace)")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  o->engine.jobs = UsableCpus();
  cmd->add_option("-j,--jobs", o->engine.jobs,
                  "threads that run the analyses: the engines side by side over one decode, SeqCheck's windows in "
                  "parallel; the report is the same for any number (default: the CPUs this process may use)")
      ->check(CLI::Range(1u, 1024u))
      ->capture_default_str();
  auto* progress = cmd->add_flag_callback(
      "--progress", [o] { o->progress = ProgressMode::kAlways; },
      "show the progress (events, SeqCheck windows, time left) on stderr even when it is not a terminal: one "
      "line a second");
  cmd->add_flag_callback(
         "--no-progress", [o] { o->progress = ProgressMode::kNever; },
         "no progress line (default: one, rewritten in place, when stderr is a terminal)")
      ->excludes(progress);
  cmd->callback([o, &runner] { runner.run = [o] { return RunAnalyze(*o); }; });
}

}  // namespace seer::cli
