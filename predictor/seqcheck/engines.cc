#include "predictor/seqcheck/engines.h"

#include <utility>
#include <vector>

#include "predictor/seqcheck/atomicity.h"
#include "predictor/seqcheck/deadlocks.h"
#include "predictor/seqcheck/trace_model.h"

namespace seer::seqcheck {
namespace {

AnalysisStats StatsOf(const char* analysis, const SeqCheckStats& s) {
  return {analysis,
          {{"candidates", static_cast<double>(s.candidates)},
           {"filtered", static_cast<double>(s.filtered)},
           {"forced", static_cast<double>(s.forced)},
           {"checks", static_cast<double>(s.checks)},
           {"feasible", static_cast<double>(s.feasible)},
           {"invalid_witnesses", static_cast<double>(s.invalid_witnesses)},
           {"check_seconds", s.check_seconds}}};
}

class StoringEngine : public Engine {
 public:
  void Process(const Event* events, size_t n) override { events_.insert(events_.end(), events, events + n); }

 protected:
  std::vector<Event> events_;
};

class DeadlockEngine : public StoringEngine {
 public:
  explicit DeadlockEngine(const AnalysisOptions& options) {
    options_.max_cycle_length = options.deadlock_max_cycle;
    options_.max_checks = options.deadlock_max_checks;
  }
  Status Finish(Findings* findings) override {
    TraceModel model(std::move(events_));
    SeqCheckStats stats;
    for (Deadlock& d : PredictDeadlocks(model, options_, &stats)) findings->deadlocks.push_back(std::move(d));
    findings->stats.push_back(StatsOf("deadlock", stats));
    return Status::Ok();
  }

 private:
  DeadlockOptions options_;
};

class AtomicityEngine : public StoringEngine {
 public:
  explicit AtomicityEngine(const AnalysisOptions& options) { options_.window = options.atomicity_window; }
  Status Finish(Findings* findings) override {
    TraceModel model(std::move(events_));
    SeqCheckStats stats;
    for (AtomicityViolation& v : PredictAtomicityViolations(model, options_, &stats))
      findings->atomicity.push_back(std::move(v));
    findings->stats.push_back(StatsOf("atomicity", stats));
    return Status::Ok();
  }

 private:
  AtomicityOptions options_;
};

}  // namespace

std::unique_ptr<Engine> NewDeadlockEngine(const AnalysisOptions& options) {
  return std::make_unique<DeadlockEngine>(options);
}
std::unique_ptr<Engine> NewAtomicityEngine(const AnalysisOptions& options) {
  return std::make_unique<AtomicityEngine>(options);
}

}  // namespace seer::seqcheck
