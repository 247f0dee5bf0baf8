// `seer export T.seer --format std|perfetto [-o FILE]`: writes a trace as STD
// text, or as a timeline (Chrome trace-event JSON, which Perfetto opens) with
// the findings of the selected analyses as instant events.
#include <fmt/format.h>

#include <charconv>
#include <memory>

#include "cli/analysis_steps.h"
#include "cli/commands.h"
#include "cli/output.h"
#include "cli/progress.h"
#include "interop/std_export.h"
#include "predictor/analyze.h"
#include "predictor/report/details.h"
#include "predictor/report/perfetto_timeline.h"

namespace seer::cli {
namespace {

struct ExportOptions {
  std::string input;
  std::string format = "std";
  std::string output;
  // perfetto only
  std::string window;
  uint64_t max_events = predictor::TimelineOptions().max_events;
  std::string analyses;
  bool no_findings = false;
  std::vector<std::string> binary_dirs;
  bool no_symbolize = false;
};

bool ParsePosition(const std::string& text, uint64_t* out) {
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, *out);
  return ec == std::errc() && ptr == end;
}

// A time with its unit ("1.5s", "250ms", "40us", "100ns") in ns; false when
// `text` has no unit (then it is a position) or is not a number.
bool ParseTimeNs(const std::string& text, bool* is_time, double* ns) {
  static constexpr std::pair<const char*, double> kUnits[] = {{"ns", 1}, {"us", 1e3}, {"ms", 1e6}, {"s", 1e9}};
  *is_time = false;
  for (const auto& [unit, scale] : kUnits) {
    const std::string u(unit);
    if (text.size() <= u.size() || text.compare(text.size() - u.size(), u.size(), u) != 0) continue;
    const std::string number = text.substr(0, text.size() - u.size());
    double v = 0;
    auto [ptr, ec] = std::from_chars(number.data(), number.data() + number.size(), v);
    if (ec != std::errc() || ptr != number.data() + number.size() || v < 0) return false;
    *is_time = true;
    *ns = v * scale;
    return true;
  }
  return true;
}

// "FROM:TO", "FROM:" or ":TO", TO exclusive: trace positions, or times after the
// recording started with a unit (s, ms, us, ns), e.g. 1.5s:2s.
Status ParseWindow(const std::string& text, predictor::TimelineOptions* options) {
  const size_t colon = text.find(':');
  const std::string from = text.substr(0, colon);
  const std::string to = colon == std::string::npos ? std::string() : text.substr(colon + 1);
  const Status bad = Status::InvalidArgument(
      "--window " + text +
      ": expected FROM:TO, FROM: or :TO, as event positions (TO excluded) or as times with a unit (1.5s:2s, "
      "200ms:, :40us)");
  if (colon == std::string::npos || (from.empty() && to.empty())) return bad;
  bool from_time = false, to_time = false;
  double from_ns = -1, to_ns = -1;
  if (!ParseTimeNs(from, &from_time, &from_ns) || !ParseTimeNs(to, &to_time, &to_ns)) return bad;
  if (from_time || to_time) {
    // Both ends in the same terms: a time and a position cannot be mixed.
    if ((!from.empty() && !from_time) || (!to.empty() && !to_time)) return bad;
    if (from_time && to_time && from_ns >= to_ns) return bad;
    options->from_ns = from_ns;
    options->to_ns = to_ns;
    return Status::Ok();
  }
  if (!from.empty() && !ParsePosition(from, &options->from)) return bad;
  if (!to.empty() && !ParsePosition(to, &options->to)) return bad;
  if (options->from >= options->to) return bad;
  return Status::Ok();
}

int RunStd(const ExportOptions& o) {
  std::unique_ptr<TraceReader> reader;
  Status s = TraceReader::Open(o.input, &reader);
  if (!s.ok()) return Fail(s);
  Output out;
  s = out.Open(o.output);
  if (!s.ok()) return Fail(s);
  interop::ExportStats stats;
  {
    Progress progress("events", reader->info().counters.events);
    s = interop::ExportStd(reader.get(), out.file(), &stats, progress.Callback());
  }
  if (s.ok()) s = out.Close();
  if (!s.ok()) return Fail(s);
  if (stats.lossy_events > 0)
    Warn(
        fmt::format("{} accesses of other than one byte in a trace without addresses: their size is kept, but "
                    "import does not restore which variables overlap",
                    stats.lossy_events));
  if (const uint64_t lost = reader->info().counters.TotalLost(); lost > 0)
    Warn(fmt::format("the trace lost {} events while recording; STD text has no place to say so", lost));
  if (stats.nonblocking_acquires > 0)
    Warn(
        fmt::format("{} trylock or timed acquires were written as plain `acq` (STD has no trylock): after import "
                    "they count as blocking, and `--analysis deadlock` may report cycles through them",
                    stats.nonblocking_acquires));
  if (stats.non_rapid_events > 0)
    Warn(
        fmt::format("{} events have no RAPID equivalent and were written with seer's own op names or "
                    "attributes; seer import reads them, RAPID does not",
                    stats.non_rapid_events));
  return kExitOk;
}

int RunPerfetto(const ExportOptions& o) {
  predictor::TimelineOptions timeline;
  timeline.max_events = o.max_events;
  Status s;
  if (!o.window.empty()) {
    s = ParseWindow(o.window, &timeline);
    if (!s.ok()) return Fail(s);
  }
  std::vector<const predictor::EngineSpec*> specs;
  if (!o.no_findings) {
    s = predictor::SelectEngines(o.analyses, &specs);
    if (!s.ok()) return Fail(s);
  }
  // The analyses run over the whole trace: a finding inside the window may
  // need events before it.
  AnalyzedTrace analyzed;
  s = AnalyzeAndSymbolize(o.input, specs, {predictor::AnalysisOptions(), !o.no_symbolize, o.binary_dirs}, &analyzed);
  if (!s.ok()) return Fail(s);
  std::string json;
  s = predictor::PerfettoTimeline(o.input, analyzed.run.findings, analyzed.details_or_null(), timeline, &json);
  if (!s.ok()) return Fail(s);
  s = WriteOutput(o.output, json);
  if (!s.ok()) return Fail(s);
  return kExitOk;
}

int RunExport(const ExportOptions& o) {
  if (o.format == "std") {
    if (!o.window.empty() || o.no_findings || !o.analyses.empty())
      return Fail(Status::InvalidArgument("--window, --analysis and --no-findings apply to --format perfetto"));
    return RunStd(o);
  }
  return RunPerfetto(o);
}

}  // namespace

void RegisterExport(CLI::App& app, Runner& runner) {
  auto o = std::make_shared<ExportOptions>();
  CLI::App* cmd = app.add_subcommand(
      "export", "Write a trace as text (STD, RAPID's format) or as a timeline (Chrome trace JSON, for Perfetto)");
  cmd->add_option("trace", o->input, "trace file")->required();
  cmd->add_option("--format", o->format, "output format")
      ->check(CLI::IsMember({"std", "perfetto"}))
      ->capture_default_str();
  cmd->add_option("-o,--output", o->output, "file to write (default: stdout)");
  cmd->add_option("--window", o->window,
                  "perfetto: only the events from FROM to TO (excluded): FROM:TO, FROM: or :TO, as trace "
                  "positions or as times after the recording started (1.5s:2s, 200ms:)");
  cmd->add_option("--max-events", o->max_events, "perfetto: most events the window may hold")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  cmd->add_option("-a,--analysis", o->analyses,
                  "perfetto: analyses whose findings are marked on the timeline (default: the default set)");
  cmd->add_flag("--no-findings", o->no_findings, "perfetto: run no analysis, mark no finding");
  cmd->add_option("--binary-dir", o->binary_dirs, "perfetto: folder to look in for a moved or changed binary");
  cmd->add_flag("--no-symbolize", o->no_symbolize, "perfetto: name locks and sites by address only");
  cmd->callback([o, &runner] { runner.run = [o] { return RunExport(*o); }; });
}

}  // namespace seer::cli
