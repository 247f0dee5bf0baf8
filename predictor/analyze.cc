#include "predictor/analyze.h"

#include <utility>

#include "predictor/seqcheck/races.h"
#include "predictor/seqcheck/trace_model.h"

namespace seer::predictor {

namespace {
// `events`: how many the trace has, or 0 when only "more than the limit" is known.
Status ConfirmLimit(const std::string& path, uint64_t events, uint64_t limit) {
  const std::string has = events > 0 ? std::to_string(events) : "more than " + std::to_string(limit);
  return Status::InvalidArgument(path + ": --confirm-races holds the whole trace in memory (up to 1.3 KB an event)" +
                                 " and this trace has " + has + " events, over the limit of " + std::to_string(limit) +
                                 ": run without --confirm-races, or raise --confirm-races-max-events");
}
}  // namespace

Status SelectEngines(const std::string& list, std::vector<const EngineSpec*>* out) {
  out->clear();
  if (list.empty()) {
    for (const EngineSpec& spec : Engines())
      if (spec.in_default_set) out->push_back(&spec);
    return Status::Ok();
  }
  size_t start = 0;
  while (start <= list.size()) {
    size_t comma = list.find(',', start);
    if (comma == std::string::npos) comma = list.size();
    const std::string name = list.substr(start, comma - start);
    start = comma + 1;
    if (name.empty()) continue;
    const EngineSpec* spec = FindEngine(name);
    if (spec == nullptr) {
      std::string known;
      for (const EngineSpec& s : Engines()) known += (known.empty() ? "" : ", ") + s.name;
      if (known.empty()) known = "none in this build";
      return Status::InvalidArgument("unknown analysis '" + name + "' (known: " + known + ")");
    }
    bool dup = false;
    for (const EngineSpec* s : *out) dup |= s == spec;
    if (!dup) out->push_back(spec);
  }
  return Status::Ok();
}

Status SelectEnginesFor(const std::string& list, const TraceInfo& info, std::vector<const EngineSpec*>* out) {
  Status s = SelectEngines(list, out);
  if (!s.ok() || !list.empty() || info.Meta("record.watch").empty()) return s;
  out->push_back(FindEngine("watch"));
  return Status::Ok();
}

Status RunAnalyses(const std::string& path, const std::vector<const EngineSpec*>& specs, const AnalysisOptions& options,
                   AnalysisRun* run, const std::function<void(uint64_t)>& progress,
                   const std::function<void(const std::vector<Event>&)>& observe) {
  Status s = TraceReader::Open(path, &run->reader);
  if (!s.ok()) return s;
  const TraceInfo& info = run->reader->info();
  if (options.confirm_races && info.counters.events > options.confirm_races_max_events)
    return ConfirmLimit(path, info.counters.events, options.confirm_races_max_events);

  std::vector<std::unique_ptr<Engine>> engines;
  for (const EngineSpec* spec : specs) {
    engines.push_back(spec->create(options));
    s = engines.back()->Begin(info);
    if (!s.ok()) return s.WithContext(spec->name);
  }

  std::vector<Event> batch;
  std::vector<Event> kept;  // --confirm-races: SeqCheck needs the whole trace afterwards
  run->events = 0;
  while (true) {
    s = run->reader->Next(&batch);
    if (!s.ok()) return s;
    if (batch.empty()) break;
    for (auto& engine : engines) engine->Process(batch.data(), batch.size());
    if (observe) observe(batch);
    if (options.confirm_races) {
      // The counters of a cut trace may undercount: check what is kept too.
      if (kept.size() + batch.size() > options.confirm_races_max_events)
        return ConfirmLimit(path, 0, options.confirm_races_max_events);
      kept.insert(kept.end(), batch.begin(), batch.end());
    }
    run->events += batch.size();
    if (progress) progress(run->events);
  }
  for (size_t i = 0; i < engines.size(); ++i) {
    s = engines[i]->Finish(&run->findings);
    if (!s.ok()) return s.WithContext(specs[i]->name);
  }
  // A post-pass, not an engine: it decides the pairs the race engines reported.
  if (options.confirm_races && !run->findings.races.empty()) {
    seqcheck::TraceModel model(std::move(kept));
    seqcheck::SeqCheckStats stats;
    seqcheck::ConfirmRacePairs(model, seqcheck::FeasibilityOptions{}, &run->findings, &stats);
  }
  return Status::Ok();
}

}  // namespace seer::predictor
