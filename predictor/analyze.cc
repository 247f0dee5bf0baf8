#include "predictor/analyze.h"

#include <utility>

#include "predictor/common/job_pool.h"
#include "predictor/parallel_feed.h"
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

namespace {

// Decoded events the engines may hold between them with --jobs (40 bytes each:
// 40 MB), so that a fast engine never runs far ahead of a slow one.
constexpr size_t kMaxEventsInFlight = size_t{1} << 20;

// What the decode loop does with each batch besides feeding the engines.
class BatchSideWork {
 public:
  BatchSideWork(const std::string& path, const AnalysisOptions& options, AnalysisRun* run,
                const std::function<void(const std::vector<Event>&)>& observe)
      : path_(path), options_(options), run_(run), observe_(observe) {}

  Status Add(const std::vector<Event>& batch) {
    if (observe_) observe_(batch);
    if (options_.confirm_races) {
      // The counters of a cut trace may undercount: check what is kept too.
      if (kept_.size() + batch.size() > options_.confirm_races_max_events)
        return ConfirmLimit(path_, 0, options_.confirm_races_max_events);
      kept_.insert(kept_.end(), batch.begin(), batch.end());
    }
    run_->events += batch.size();
    return Status::Ok();
  }
  // --confirm-races: SeqCheck needs the whole trace after the pass.
  std::vector<Event> TakeKept() { return std::move(kept_); }

 private:
  const std::string& path_;
  const AnalysisOptions& options_;
  AnalysisRun* run_;
  const std::function<void(const std::vector<Event>&)>& observe_;
  std::vector<Event> kept_;
};

// One thread: every engine takes each batch in turn.
Status FeedInOrder(const std::vector<const EngineSpec*>& specs, const std::vector<std::unique_ptr<Engine>>& engines,
                   AnalysisRun* run, BatchSideWork* side, AnalysisProgress* progress, std::vector<Findings>* each) {
  std::vector<Event> batch;
  while (true) {
    Status s = run->reader->Next(&batch);
    if (!s.ok()) return s;
    if (batch.empty()) break;
    for (auto& engine : engines) engine->Process(batch.data(), batch.size());
    s = side->Add(batch);
    if (!s.ok()) return s;
    if (progress != nullptr) progress->Fed(run->events, run->reader->info().counters.events);
  }
  each->assign(engines.size(), Findings());
  for (size_t i = 0; i < engines.size(); ++i) {
    Status s = engines[i]->Finish(&(*each)[i]);
    if (!s.ok()) return s.WithContext(specs[i]->name);
  }
  return Status::Ok();
}

// --jobs N: this thread decodes, the engines run on the pool's N threads.
Status FeedInParallel(JobPool* pool, const std::vector<const EngineSpec*>& specs,
                      const std::vector<std::unique_ptr<Engine>>& engines, AnalysisRun* run, BatchSideWork* side,
                      AnalysisProgress* progress, std::vector<Findings>* each) {
  std::vector<Engine*> lanes;
  std::vector<double> costs;
  for (size_t i = 0; i < engines.size(); ++i) {
    lanes.push_back(engines[i].get());
    costs.push_back(specs[i]->lane_cost);
  }
  ParallelFeed feed(pool, lanes, costs, kMaxEventsInFlight);
  while (true) {
    std::vector<Event> events = feed.Spare();
    Status s = run->reader->Next(&events);
    if (!s.ok()) return s;
    if (events.empty()) break;
    const SharedBatch batch = feed.Share(std::move(events));
    feed.Push(batch);
    s = side->Add(*batch);
    if (!s.ok()) return s;
    // What the slowest engine has done: the decoder runs ahead by at most the bound.
    if (progress != nullptr) progress->Fed(feed.processed(), run->reader->info().counters.events);
  }
  size_t failed = 0;
  Status s = feed.Finish(each, &failed, [&](uint64_t processed) {
    if (progress != nullptr) progress->Fed(processed, run->reader->info().counters.events);
  });
  if (!s.ok()) return s.WithContext(specs[failed]->name);
  return Status::Ok();
}

}  // namespace

Status RunAnalyses(const std::string& path, const std::vector<const EngineSpec*>& specs, const AnalysisOptions& options,
                   AnalysisRun* run, AnalysisProgress* progress,
                   const std::function<void(const std::vector<Event>&)>& observe) {
  Status s = TraceReader::Open(path, &run->reader);
  if (!s.ok()) return s;
  const TraceInfo& info = run->reader->info();
  if (options.confirm_races && info.counters.events > options.confirm_races_max_events)
    return ConfirmLimit(path, info.counters.events, options.confirm_races_max_events);

  // The pool outlives the engines' tasks: declared before them, destroyed after.
  std::unique_ptr<JobPool> pool;
  if (options.jobs > 1) pool = std::make_unique<JobPool>(options.jobs);
  std::vector<std::unique_ptr<Engine>> engines;
  for (const EngineSpec* spec : specs) {
    engines.push_back(spec->create(options));
    if (pool) engines.back()->UseJobs(pool.get());
    if (progress != nullptr) engines.back()->ShowProgress(progress);
    s = engines.back()->Begin(info);
    if (!s.ok()) return s.WithContext(spec->name);
  }

  run->events = 0;
  BatchSideWork side(path, options, run, observe);
  std::vector<Findings> each;
  s = pool ? FeedInParallel(pool.get(), specs, engines, run, &side, progress, &each)
           : FeedInOrder(specs, engines, run, &side, progress, &each);
  if (!s.ok()) return s;
  if (run->keep_by_engine)
    run->by_engine = std::move(each);
  else
    for (Findings& f : each) run->findings.Append(std::move(f));
  if (progress != nullptr) progress->Fed(run->events, info.counters.events);
  // A post-pass, not an engine: it decides the pairs the race engines reported.
  if (options.confirm_races && !run->findings.races.empty()) {
    seqcheck::TraceModel model(side.TakeKept());
    seqcheck::SeqCheckStats stats;
    seqcheck::ConfirmRacePairs(model, seqcheck::FeasibilityOptions{}, &run->findings, &stats);
  }
  return Status::Ok();
}

}  // namespace seer::predictor
