// `seer fuzz`: RaceFuzzer's confirmation of predicted races (Sen, PLDI 2008),
// and AtomFuzzer's of atomicity candidates (Park and Sen, FSE 2008). Each
// predicted pair of statements, and each atomicity violation or candidate
// (first, remote, second), is given to the runtime's directed scheduler
// (runtime/fuzz_scheduler.h) in runs of the program with seeds S, S+1, ...: a
// run in which two threads reach the two statements on the same bytes at once,
// one of them writing, proves the race real; one in which another thread's
// access at `remote` comes between a thread's accesses at `first` and
// `second`, the violation. A run that then ends or prints differently from an
// unscheduled run (or whose load does: --load) shows it harmful.
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>
#include <string_view>
#include <tuple>

#include <nlohmann/json.hpp>

#include "cli/analysis_steps.h"
#include "cli/commands.h"
#include "cli/output.h"
#include "cli/program_run.h"
#include "predictor/analyze.h"
#include "predictor/report/report.h"
#include "predictor/symbolize/symbolizer.h"
#include "recorder/recorder.h"
#include "store/build_id.h"

namespace seer::cli {
namespace {

using nlohmann::json;

struct FuzzCommandOptions {
  std::string input;  // REPORT.json or TRACE.seer
  std::string pairs;  // --pairs REPORT.json
  uint64_t runs = 100;
  uint64_t seed = 1;
  bool seed_given = false;
  bool runs_given = false;
  uint64_t pair = 0;  // 0: every pair
  double timeout_s = 10;
  bool find_harmful = false;
  std::string load;      // --load: a shell command that drives a server
  std::string schedule;  // --schedule: the timing events an earlier run logged, to follow
  std::string format = "text";
  std::string output;
  std::vector<std::string> command;
};

// One statement of a pair: where the hooks see it, as an offset in the executable.
struct Statement {
  uint64_t offset = 0;
  std::string site;  // "function file:line" when symbolised
};

// A distinct pair of statements, or atomicity candidate, with the report
// entries that name it. Races and atomicity candidates are numbered together.
struct FuzzPair {
  uint64_t id = 0;
  bool atomicity = false;
  std::string pattern;       // atomicity: "read-write-write", ...
  Statement a, b;            // a race's two statements; atomicity: first and second
  Statement remote;          // atomicity: the other thread's
  std::string not_directed;  // why the scheduler cannot direct this pair ("" when it can)
  std::vector<std::string> engines;
  std::vector<json*> entries;
};

// What the runtime wrote for a confirmed race or violation (fuzz_scheduler.cc,
// ReportLocked and EndRegionLocked): "k=v" words.
struct RaceSeen {
  std::map<std::string, std::string> fields;
};

struct PairOutcome {
  uint64_t runs = 0;  // runs made
  bool confirmed = false;
  uint64_t seed = 0;  // of the first confirming run (or the harmful one)
  bool harmful = false;
  std::string harm;  // how the harmful run differed
  RaceSeen race;
  std::string end;  // how the reported run ended
  // Scheduling events of the reported run that timing decided, not the seed (a
  // thread back from the kernel, a retry while nobody ran: fuzz_scheduler.cc,
  // LogTimedLocked). Not 0: the seed alone may not replay the run; its log,
  // kept in `schedule`, lets a replay follow them (--schedule).
  uint64_t timed_events = 0;
  std::string schedule;
  // A replay (--schedule) that could not follow its schedule: from which of
  // its events on the run was free (-1: it followed it to the end).
  int64_t left_schedule_at = -1;
};

// What the runtime logged of one run's timing events (SEER_FUZZ_TIMING): the
// records of fuzz_scheduler.cc's TimedRecord (16 bytes: step, slot, kind).
struct TimingLog {
  uint64_t events = 0;
  int64_t left_schedule_at = -1;  // a kDiverged record's event index
  uint64_t two_running = 0;       // kTwoRunning records: the scheduler's own faults
};

TimingLog ReadTimingLog(const std::string& path) {
  constexpr uint32_t kDiverged = 9, kTwoRunning = 10;
  TimingLog log;
  std::ifstream in(path, std::ios::binary);
  struct {
    uint64_t step;
    int32_t slot;
    uint32_t kind;
  } record;
  static_assert(sizeof record == 16);
  while (in.read(reinterpret_cast<char*>(&record), sizeof record)) {
    if (record.kind == kDiverged) {
      if (log.left_schedule_at < 0) log.left_schedule_at = record.slot;
    } else if (record.kind == kTwoRunning) {
      ++log.two_running;
    } else {
      ++log.events;
    }
  }
  return log;
}

std::string RealPath(const std::string& path) {
  char buf[PATH_MAX];
  return realpath(path.c_str(), buf) != nullptr ? std::string(buf) : path;
}

std::string SiteOf(const json& event) {
  std::string site;
  if (event.value("function", json()).is_string()) site = event["function"].get<std::string>();
  if (event.value("file", json()).is_string()) {
    std::string file = event["file"].get<std::string>();
    if (size_t slash = file.rfind('/'); slash != std::string::npos) file = file.substr(slash + 1);
    site += (site.empty() ? "" : " ") + file;
    if (event.value("line", json()).is_number()) site += fmt::format(":{}", event["line"].get<uint64_t>());
  }
  return site;
}

// A statement outside the executable is no error: its pair is listed as not directed.
Status StatementOf(const json& event, const std::string& exe, Statement* out, std::string* not_directed) {
  const json& stack = event.value("stack", json::array());
  if (!stack.is_array() || stack.empty() || !stack[0].value("module", json()).is_string())
    return Status::InvalidArgument(
        "a race pair has no symbolised stack: analyse a trace with a module map, without --no-symbolize");
  const std::string module = stack[0]["module"].get<std::string>();
  out->offset = stack[0].value("offset", uint64_t{0});
  out->site = SiteOf(event);
  if (RealPath(module) != exe && not_directed->empty())
    *not_directed = fmt::format("a statement is in {}: only the executable's statements are directed", module);
  if (out->site.empty()) out->site = fmt::format("{:#x}", out->offset);
  return Status::Ok();
}

// Lists `pair` under `key` (numbered next) unless a pair with that key is
// listed already; either way the listed one gets the engine and the report entry.
template <typename Key>
void AddDistinct(const Key& key, FuzzPair pair, const std::string& engine, json* entry, std::map<Key, size_t>* seen,
                 std::vector<FuzzPair>* out) {
  auto it = seen->find(key);
  if (it == seen->end()) {
    it = seen->emplace(key, out->size()).first;
    pair.id = out->size() + 1;
    out->push_back(std::move(pair));
  }
  FuzzPair& known = (*out)[it->second];
  known.engines.push_back(engine);
  known.entries.push_back(entry);
}

// Distinct pairs of statements over every engine, numbered from 1 in report order.
Status CollectPairs(json* report, const std::string& exe, std::vector<FuzzPair>* out) {
  if (!report->is_object() || !report->contains("races") || !(*report)["races"].is_object())
    return Status::InvalidArgument("not a seer JSON report (no \"races\" object): use seer analyze --format json");
  std::map<std::pair<uint64_t, uint64_t>, size_t> seen;
  for (auto& [engine, result] : (*report)["races"].items()) {
    if (!result.contains("pairs")) continue;
    for (json& p : result["pairs"]) {
      if (!p.contains("first") || !p.contains("second"))
        return Status::InvalidArgument("a race pair without \"first\" and \"second\"");
      FuzzPair pair;
      Status s = StatementOf(p["first"], exe, &pair.a, &pair.not_directed);
      if (s.ok()) s = StatementOf(p["second"], exe, &pair.b, &pair.not_directed);
      if (!s.ok()) return s;
      // Statements are told apart by their offsets; pairs with a statement in
      // another module (another module's offsets) apart from the executable's.
      const uint64_t tag = pair.not_directed.empty() ? 0 : 1ull << 63;
      const std::pair<uint64_t, uint64_t> key(std::min(pair.a.offset, pair.b.offset) | tag,
                                              std::max(pair.a.offset, pair.b.offset) | tag);
      AddDistinct(key, std::move(pair), engine, &p, &seen, out);
    }
  }
  return Status::Ok();
}

// Distinct (first, second, remote) of the atomicity violations and of the
// candidates no reordering of the run realises, numbered after the races.
Status CollectAtomicity(json* report, const std::string& exe, std::vector<FuzzPair>* out) {
  std::map<std::tuple<uint64_t, uint64_t, uint64_t>, size_t> seen;
  for (const char* list : {"atomicity", "atomicity_candidates"}) {
    if (!report->contains(list)) continue;
    if (!(*report)[list].is_array())
      return Status::InvalidArgument(fmt::format("not a seer JSON report (\"{}\" is not a list)", list));
    const bool candidate = std::string_view(list) == "atomicity_candidates";
    for (json& v : (*report)[list]) {
      if (!v.contains("local_first") || !v.contains("remote") || !v.contains("local_second"))
        return Status::InvalidArgument("an atomicity entry without \"local_first\", \"remote\" and \"local_second\"");
      FuzzPair pair;
      pair.atomicity = true;
      pair.pattern = v.value("pattern", "");
      Status s = StatementOf(v["local_first"], exe, &pair.a, &pair.not_directed);
      if (s.ok()) s = StatementOf(v["local_second"], exe, &pair.b, &pair.not_directed);
      if (s.ok()) s = StatementOf(v["remote"], exe, &pair.remote, &pair.not_directed);
      if (!s.ok()) return s;
      const uint64_t tag = pair.not_directed.empty() ? 0 : 1ull << 63;  // as for races
      const auto key = std::make_tuple(pair.a.offset | tag, pair.b.offset | tag, pair.remote.offset | tag);
      const std::string engine = v.value("engine", "atomicity");
      AddDistinct(key, std::move(pair), candidate ? engine + " candidate" : engine, &v, &seen, out);
    }
  }
  return Status::Ok();
}

Status LoadReport(const FuzzCommandOptions& o, json* report) {
  const std::string& path = o.pairs.empty() ? o.input : o.pairs;
  if (path.empty()) return Status::InvalidArgument("give the predicted pairs: --pairs REPORT.json or TRACE.seer");
  std::ifstream in(path);
  if (!in) return Status::NotFound(fmt::format("cannot open {}", path));
  const bool is_json = !o.pairs.empty() || (path.size() > 5 && path.compare(path.size() - 5, 5, ".json") == 0);
  if (is_json) {
    *report = json::parse(in, nullptr, /*allow_exceptions=*/false);
    if (report->is_discarded()) return Status::InvalidArgument(fmt::format("{}: not valid JSON", path));
    return Status::Ok();
  }
  // A trace: the default analyses, as `seer analyze --format json` reports them.
  std::vector<const predictor::EngineSpec*> specs;
  Status s = predictor::SelectEngines("", &specs);
  if (!s.ok()) return s;
  std::vector<std::string> names;
  for (const predictor::EngineSpec* spec : specs) names.push_back(spec->name);
  AnalyzedTrace analyzed;
  s = AnalyzeAndSymbolize(path, specs, {predictor::AnalysisOptions(), true, {}}, &analyzed);
  if (!s.ok()) return s;
  *report = json::parse(
      predictor::JsonReport(*analyzed.run.reader, analyzed.run.findings, names, analyzed.details_or_null()));
  return Status::Ok();
}

RaceSeen ParseRaceLine(const std::string& line) {
  RaceSeen r;
  std::istringstream words(line);
  std::string word;
  while (words >> word)
    if (size_t eq = word.find('='); eq != std::string::npos) r.fields[word.substr(0, eq)] = word.substr(eq + 1);
  return r;
}

RunOptions Run(const FuzzCommandOptions& o, std::vector<std::pair<std::string, std::string>> env) {
  RunOptions r;
  r.argv = o.command;
  r.env = std::move(env);
  r.timeout_s = o.timeout_s;
  r.load = o.load;
  return r;
}

// One scheduled run; `race` is set when the runtime confirmed the race or
// violation, `timing` to what it logged of its timing events (the log itself
// is left at `timing_path`).
Status FuzzRun(const FuzzCommandOptions& o, const FuzzPair& p, uint64_t seed, const std::string& out_path,
               const std::string& timing_path, ProgramResult* result, bool* confirmed, RaceSeen* race,
               TimingLog* timing) {
  unlink(out_path.c_str());
  unlink(timing_path.c_str());
  const std::string spec = p.atomicity ? fmt::format("{},{:x},{:x},{:x}", seed, p.a.offset, p.b.offset, p.remote.offset)
                                       : fmt::format("{},{:x},{:x}", seed, p.a.offset, p.b.offset);
  std::vector<std::pair<std::string, std::string>> env = {
      {"SEER_FUZZ", spec}, {"SEER_FUZZ_OUT", out_path}, {"SEER_FUZZ_TIMING", timing_path}};
  if (!o.schedule.empty()) env.push_back({"SEER_FUZZ_REPLAY", o.schedule});
  Status s = RunProgram(Run(o, env), result);
  if (!s.ok()) return s;
  *timing = ReadTimingLog(timing_path);
  if (timing->two_running != 0)
    return Status::Internal(fmt::format(
        "the scheduler let two threads run at once ({} time(s)) in the run of pair {} with seed {}{}: its outcome "
        "follows no schedule and is not reported; please report it with that pair, seed and program",
        timing->two_running, p.id, seed, o.schedule.empty() ? "" : " and schedule " + o.schedule));
  std::ifstream in(out_path);
  std::string line;
  *confirmed = static_cast<bool>(std::getline(in, line)) && line.rfind(p.atomicity ? "atomicity " : "race ", 0) == 0;
  if (*confirmed) *race = ParseRaceLine(line);
  return Status::Ok();
}

// How a run differs from the unscheduled one; "" when it does not. A signal
// the reference ended by too (a server stopped after its load) is no crash.
std::string Harm(const ProgramResult& reference, const ProgramResult& run) {
  if (run.timed_out) return "it hung (timed out)";
  if (run.signal != 0 && run.signal != reference.signal) return fmt::format("it crashed ({})", DescribeEnd(run));
  if (run.exit_code != reference.exit_code)
    return fmt::format("it exited differently ({} instead of {})", DescribeEnd(run), DescribeEnd(reference));
  if (run.out != reference.out) return "its output differs from the unscheduled run's";
  if (run.load_ran != reference.load_ran || run.load_exit_code != reference.load_exit_code ||
      run.load_signal != reference.load_signal)
    return fmt::format("its load ended differently ({} instead of {})", DescribeLoad(run), DescribeLoad(reference));
  if (run.load_out != reference.load_out) return "its load's output differs from the unscheduled run's";
  return std::string();
}

// `dir`: where the runs' files go; the timing log of the reported run stays
// there as pairN.seedS.schedule when timing decided part of it.
Status FuzzPairRuns(const FuzzCommandOptions& o, const FuzzPair& p, const ProgramResult& reference,
                    const std::string& dir, PairOutcome* outcome) {
  const uint64_t runs = o.seed_given && !o.runs_given ? 1 : o.runs;
  const std::string out_path = dir + "/races", timing_path = dir + "/timing";
  for (uint64_t i = 0; i < runs; ++i) {
    const uint64_t seed = o.seed + i;
    ProgramResult result;
    bool confirmed = false;
    RaceSeen race;
    TimingLog timing;
    Status s = FuzzRun(o, p, seed, out_path, timing_path, &result, &confirmed, &race, &timing);
    if (!s.ok()) return s;
    outcome->runs = i + 1;
    if (!o.schedule.empty()) {  // one run: what it made of its schedule, confirmed or not
      outcome->timed_events = timing.events;
      outcome->left_schedule_at = timing.left_schedule_at;
    }
    if (!confirmed) continue;
    const std::string harm = Harm(reference, result);
    if (!outcome->confirmed || !harm.empty()) {
      outcome->confirmed = true;
      outcome->seed = seed;
      outcome->race = race;
      outcome->end = DescribeEnd(result);
      outcome->harmful = !harm.empty();
      outcome->harm = harm;
      outcome->timed_events = timing.events;
      outcome->left_schedule_at = timing.left_schedule_at;
      outcome->schedule.clear();
      if (timing.events != 0 && o.schedule.empty()) {
        outcome->schedule = fmt::format("{}/pair{}.seed{}.schedule", dir, p.id, seed);
        if (rename(timing_path.c_str(), outcome->schedule.c_str()) != 0) outcome->schedule.clear();
      }
    }
    if (!o.find_harmful || outcome->harmful) break;
  }
  return Status::Ok();
}

// The executable's source lines for the stacks the scheduler writes: offsets
// in the ELF file (addresses as addr2line takes them), innermost first.
class StackSymbols {
 public:
  explicit StackSymbols(const std::string& exe) {
    // The executable as if mapped at kBase from its first byte; its bias comes
    // back as the base's pc minus its offset.
    ModuleInfo m;
    m.path = exe;
    m.build_id = store::ReadBuildId(exe);
    m.base = kBase;
    m.size = kSize;
    symbolizer_ = std::make_unique<predictor::Symbolizer>(std::vector<ModuleInfo>{m}, predictor::SymbolizerOptions());
    bias_ = kBase - symbolizer_->Symbolize(kBase).front().offset;
  }

  // "45bb,60c4" -> "Worker fig1.c:16 < main fig1.c:30" (a frame without a line
  // keeps its offset); the offsets themselves when none resolves.
  std::string Text(const std::string& offsets) {
    std::string out;
    bool any = false;
    std::stringstream in(offsets);
    for (std::string word; std::getline(in, word, ',');) {
      char* end = nullptr;
      const uint64_t offset = std::strtoull(word.c_str(), &end, 16);
      if (word.empty() || *end != '\0') return offsets;
      const predictor::Frame& f = symbolizer_->Symbolize(bias_ + offset).front();
      if (f.function.rfind("seer::rt::", 0) == 0) continue;  // the runtime's own (a thread's start)
      std::string frame = f.function.empty() ? word : f.function;
      if (!f.file.empty() && f.line != 0) {
        frame += fmt::format(" {}:{}", std::filesystem::path(f.file).filename().string(), f.line);
        any = true;
      }
      out += (out.empty() ? "" : " < ") + frame;
    }
    return any ? out : offsets;
  }

 private:
  static constexpr uint64_t kBase = 1ull << 44;
  static constexpr uint64_t kSize = 1ull << 40;
  std::unique_ptr<predictor::Symbolizer> symbolizer_;
  uint64_t bias_ = 0;
};

// `word` as one word of a POSIX shell's command line.
std::string ShellWord(const std::string& word) {
  const bool plain = !word.empty() && std::all_of(word.begin(), word.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           std::string_view("_-./=:,+@%").find(c) != std::string_view::npos;
  });
  if (plain) return word;
  std::string quoted = "'";
  for (char c : word) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return quoted + "'";
}

// The command that runs pair `pair` with `seed` again, pasted as it is into a
// shell: the pairs' file as it was given (report or trace, by the same
// option), the timeout when not the default, the load, the schedule to follow
// when timing decided part of the run, and the program's whole command line.
std::string ReplayLine(const FuzzCommandOptions& o, uint64_t pair, uint64_t seed, const std::string& schedule) {
  std::string line = "seer fuzz ";
  line += o.pairs.empty() ? ShellWord(o.input) : "--pairs " + ShellWord(o.pairs);
  line += fmt::format(" --pair {} --seed {}", pair, seed);
  if (o.timeout_s != FuzzCommandOptions().timeout_s) line += fmt::format(" --timeout {}", o.timeout_s);
  if (!o.load.empty()) line += " --load " + ShellWord(o.load);
  if (!schedule.empty()) line += " --schedule " + ShellWord(schedule);
  line += " --";
  for (const std::string& word : o.command) line += " " + ShellWord(word);
  return line;
}

// The schedule a replay of `r` follows: the one kept of its run, or the one
// this command followed itself.
std::string ScheduleOf(const FuzzCommandOptions& o, const PairOutcome& r) {
  return r.schedule.empty() ? o.schedule : r.schedule;
}

// The replay line, and what timing decided of the run: the seed alone replays
// a run that timing decided nothing of; else the replay follows the run's
// logged timing events, and says when it could not.
// A replay (--schedule), confirmed or not: whether it followed its schedule.
std::string ScheduleNote(const FuzzCommandOptions& o, const PairOutcome& r) {
  if (o.schedule.empty()) return std::string();
  if (r.left_schedule_at >= 0)
    return fmt::format(
        "  (this run left the schedule at its timing event {}: from there on the kernel's timing, not the "
        "schedule, decided)\n",
        r.left_schedule_at);
  return fmt::format("  (this run followed the schedule: {} timing events)\n", r.timed_events);
}

std::string ReplayText(const FuzzCommandOptions& o, const FuzzPair& p, const PairOutcome& r) {
  const std::string schedule = ScheduleOf(o, r);
  std::string text = "  replay: " + ReplayLine(o, p.id, r.seed, schedule) + "\n";
  if (!o.schedule.empty())
    text += ScheduleNote(o, r);
  else if (r.timed_events != 0)
    text += fmt::format(
        "  (timing, not the seed, decided {} scheduling event{} of this run (a thread back from the kernel, or "
        "retrying while nobody ran): the replay follows them from {})\n",
        r.timed_events, r.timed_events == 1 ? "" : "s", schedule.empty() ? "(a schedule not kept)" : schedule);
  return text;
}

json OutcomeJson(const FuzzCommandOptions& o, const FuzzPair& p, const PairOutcome& r, StackSymbols* symbols) {
  json statements = {{{"site", p.a.site}, {"offset", p.a.offset}}, {{"site", p.b.site}, {"offset", p.b.offset}}};
  if (p.atomicity) {
    statements = {{{"role", "first"}, {"site", p.a.site}, {"offset", p.a.offset}},
                  {{"role", "remote"}, {"site", p.remote.site}, {"offset", p.remote.offset}},
                  {{"role", "second"}, {"site", p.b.site}, {"offset", p.b.offset}}};
  }
  json j = {{"pair", p.id},
            {"kind", p.atomicity ? "atomicity" : "race"},
            {"pattern", p.atomicity ? json(p.pattern) : json(nullptr)},
            {"statements", statements},
            {"runs", r.runs},
            {"confirmed", r.confirmed ? json("fuzz") : json(nullptr)},
            {"seed", r.confirmed ? json(r.seed) : json(nullptr)},
            {"harmful", r.harmful},
            {"harm", r.harm.empty() ? json(nullptr) : json(r.harm)},
            {"not_directed", p.not_directed.empty() ? json(nullptr) : json(p.not_directed)}};
  // A replay's, confirmed or not (null: it followed its schedule, or is no replay).
  j["left_schedule_at"] = r.left_schedule_at >= 0 ? json(r.left_schedule_at) : json(nullptr);
  if (r.confirmed) {
    json race = json::object();
    for (const auto& [k, v] : r.race.fields) race[k] = v;
    for (const char* side : {"a", "b", "first", "remote", "second"}) {
      auto stack = r.race.fields.find(std::string(side) + "_stack");
      if (stack != r.race.fields.end()) race[std::string(side) + "_frames"] = symbols->Text(stack->second);
    }
    j[p.atomicity ? "violation" : "race"] = race;
    j["run_end"] = r.end;
    j["replay"] = ReplayLine(o, p.id, r.seed, ScheduleOf(o, r));
    j["timed_events"] = r.timed_events;
    j["schedule"] = ScheduleOf(o, r).empty() ? json(nullptr) : json(ScheduleOf(o, r));
  }
  return j;
}

std::string OutcomeText(const FuzzCommandOptions& o, const FuzzPair& p, const PairOutcome& r, StackSymbols* symbols) {
  std::string engines;
  for (const std::string& e : p.engines) engines += (engines.empty() ? "" : ", ") + e;
  std::string text = p.atomicity ? fmt::format("pair {}: atomicity {}: {}  ..  {}  ..  {}  [{}]\n", p.id, p.pattern,
                                               p.a.site, p.remote.site, p.b.site, engines)
                                 : fmt::format("pair {}: {}  <->  {}  [{}]\n", p.id, p.a.site, p.b.site, engines);
  if (!p.not_directed.empty()) return text + "  not fuzzed: " + p.not_directed + "\n";
  if (!r.confirmed)
    return text + fmt::format("  not confirmed in {} run(s) (seeds {}..{})\n", r.runs, o.seed, o.seed + r.runs - 1) +
           ScheduleNote(o, r);
  text += fmt::format("  confirmed: fuzz (seed {}, in run {}){}\n", r.seed, r.seed - o.seed + 1,
                      r.harmful ? ", HARMFUL: " + r.harm : ", not shown harmful");
  const auto field = [&](const char* k) {
    auto it = r.race.fields.find(k);
    return it == r.race.fields.end() ? std::string("?") : it->second;
  };
  if (p.atomicity) {
    text += fmt::format("  violation on 0x{}, in this order; run ended with {}\n", field("addr"), r.end);
    const auto step = [&](const char* label, const std::string& tid, const char* side) {
      const std::string s(side);
      return fmt::format("    {} thread {} {} {} bytes at {} (offsets {})\n", label, tid,
                         field((s + "_write").c_str()) == "1" ? "writes" : "reads", field((s + "_size").c_str()),
                         symbols->Text(field((s + "_stack").c_str())), field((s + "_stack").c_str()));
    };
    text += step("first: ", field("first_tid"), "first");
    text += step("remote:", field("remote_tid"), "remote");
    text += step("second:", field("first_tid"), "second");
    return text + ReplayText(o, p, r);
  }
  text += fmt::format("  race on 0x{}: {} went first; run ended with {}\n", field("addr"),
                      field("first") == "a" ? "the postponed access" : "the arriving access", r.end);
  text += fmt::format("    postponed: thread {} {} {} bytes at {} (offsets {})\n", field("a_tid"),
                      field("a_write") == "1" ? "writes" : "reads", field("a_size"), symbols->Text(field("a_stack")),
                      field("a_stack"));
  text += fmt::format("    arriving:  thread {} {} {} bytes at {} (offsets {})\n", field("b_tid"),
                      field("b_write") == "1" ? "writes" : "reads", field("b_size"), symbols->Text(field("b_stack")),
                      field("b_stack"));
  return text + ReplayText(o, p, r);
}

int RunFuzz(const FuzzCommandOptions& o) {
  if (o.command.empty()) return Fail(Status::InvalidArgument("no program: seer fuzz [options] -- ./prog args"));
  const std::string exe = RealPath(o.command[0]);
  if (access(exe.c_str(), X_OK) != 0)
    return Fail(Status::NotFound(fmt::format("{}: not an executable file", o.command[0])));
  if (!recorder::CarriesRuntime(exe))
    return Fail(Status::InvalidArgument(
        fmt::format("{} does not carry seer's runtime: build it with seer-cc or seer-c++", o.command[0])));
  if (!o.schedule.empty() && (!o.seed_given || o.pair == 0 || o.runs_given))
    return Fail(Status::InvalidArgument(
        "--schedule replays one reported run: give its --pair and --seed (and no --runs), as its replay line does"));
  json report;
  Status s = LoadReport(o, &report);
  if (!s.ok()) return Fail(s);
  std::vector<FuzzPair> pairs;
  s = CollectPairs(&report, exe, &pairs);
  if (s.ok()) s = CollectAtomicity(&report, exe, &pairs);
  if (!s.ok()) return Fail(s);
  if (o.pair > pairs.size())
    return Fail(Status::InvalidArgument(fmt::format("--pair {}: the report has {} pair(s)", o.pair, pairs.size())));

  ProgramResult reference;
  s = RunProgram(Run(o, {{"SEER_FUZZ", ""}}), &reference);
  if (!s.ok()) return Fail(s);
  if (!o.load.empty() && !reference.load_ran)
    return Fail(Status::InvalidArgument(fmt::format(
        "--load: the unscheduled run of {} ended ({}) without listening on a TCP port: the load was never started",
        o.command[0], DescribeEnd(reference))));
  // The runs' files; kept (with the schedules a replay follows) when a
  // reported run needs its schedule.
  const char* tmp = getenv("TMPDIR");
  std::string dir = std::string(tmp != nullptr && *tmp != '\0' ? tmp : "/tmp") + "/seer-fuzz-XXXXXX";
  if (mkdtemp(dir.data()) == nullptr)
    return Fail(Status::IOError(fmt::format("cannot create a folder {}: {}", dir, std::strerror(errno))));

  StackSymbols symbols(exe);
  const size_t atomicity = std::count_if(pairs.begin(), pairs.end(), [](const FuzzPair& p) { return p.atomicity; });
  std::string text = fmt::format("seer fuzz: {} race pair(s), {} atomicity candidate(s); unscheduled run: {}{}\n",
                                 pairs.size() - atomicity, atomicity, DescribeEnd(reference),
                                 o.load.empty() ? "" : ", its load: " + DescribeLoad(reference));
  json outcomes = json::array();
  uint64_t confirmed = 0, harmful = 0;
  for (const FuzzPair& p : pairs) {
    if (o.pair != 0 && p.id != o.pair) continue;
    PairOutcome r;
    if (p.not_directed.empty()) s = FuzzPairRuns(o, p, reference, dir, &r);
    if (!s.ok()) break;
    confirmed += r.confirmed;
    harmful += r.harmful;
    text += OutcomeText(o, p, r, &symbols);
    json j = OutcomeJson(o, p, r, &symbols);
    for (json* entry : p.entries) (*entry)["fuzz"] = j;
    outcomes.push_back(j);
  }
  unlink((dir + "/races").c_str());
  unlink((dir + "/timing").c_str());
  rmdir(dir.c_str());  // fails, and keeps it, when a schedule is in it
  if (!s.ok()) return Fail(s);
  text += fmt::format("{} confirmed, {} harmful, of {} pair(s) fuzzed\n", confirmed, harmful, outcomes.size());
  json reference_json = {{"end", DescribeEnd(reference)}};
  if (!o.load.empty()) reference_json["load"] = {{"command", o.load}, {"end", DescribeLoad(reference)}};
  report["fuzz"] = {{"program", o.command}, {"reference", reference_json}, {"base_seed", o.seed}, {"pairs", outcomes}};
  s = WriteOutput(o.output, o.format == "json" ? report.dump(2) + "\n" : text);
  if (!s.ok()) return Fail(s);
  return kExitOk;
}

}  // namespace

void RegisterFuzz(CLI::App& app, Runner& runner) {
  auto o = std::make_shared<FuzzCommandOptions>();
  CLI::App* cmd = app.add_subcommand(
      "fuzz", "Confirm predicted races and atomicity violations by making them happen (RaceFuzzer, AtomFuzzer)");
  cmd->add_option("--pairs", o->pairs, "the JSON report whose race pairs to confirm");
  cmd->add_option("--runs", o->runs, "scheduled runs per pair at most (default 100; 1 with --seed)")
      ->check(CLI::PositiveNumber)
      ->each([o](const std::string&) { o->runs_given = true; });
  cmd->add_option("--seed", o->seed, "first seed (runs use seed, seed+1, ...): replays a reported run")
      ->each([o](const std::string&) { o->seed_given = true; });
  cmd->add_option("--pair", o->pair, "fuzz only this pair (numbered from 1 as seer fuzz lists them)")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--timeout", o->timeout_s, "seconds before a run counts as hung")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  cmd->add_option("--load", o->load,
                  "a shell command that drives a server: started once the program listens on a TCP port "
                  "(its port in $SEER_LOAD_PORT); when it ends, the program gets SIGTERM");
  cmd->add_option("--schedule", o->schedule,
                  "with --pair and --seed: follow the timing events a reported run logged (its replay line names it)")
      ->check(CLI::ExistingFile);
  cmd->add_flag("--find-harmful", o->find_harmful,
                "after a confirming run, go on (up to --runs) until one ends or prints differently");
  cmd->add_option("--format", o->format, "output format")
      ->check(CLI::IsMember({"text", "json"}))
      ->capture_default_str();
  cmd->add_option("-o,--output", o->output, "file to write the result to (default: stdout)");
  cmd->add_option("input", o->input, "REPORT.json (seer analyze --format json) or TRACE.seer, unless --pairs");
  cmd->add_option("command", o->command, "-- program and arguments (built with seer-cc / seer-c++)");
  cmd->callback([o, &runner] {
    // CLI11 fills the positionals in order: with --pairs, the first word after
    // "--" lands in `input` and is the program.
    if (!o->pairs.empty() && !o->input.empty()) {
      o->command.insert(o->command.begin(), o->input);
      o->input.clear();
    }
    runner.run = [o] { return RunFuzz(*o); };
  });
}

}  // namespace seer::cli
