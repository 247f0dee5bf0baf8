#include "predictor/seqcheck/engines.h"

#include <algorithm>
#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "predictor/seqcheck/atomicity.h"
#include "predictor/seqcheck/deadlocks.h"
#include "predictor/seqcheck/lock_order.h"
#include "predictor/seqcheck/trace_model.h"
#include "predictor/seqcheck/trace_windows.h"

namespace seer::predictor::seqcheck {
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

// Feeds the events to TraceWindows and decides each full window as it closes,
// the last one at Finish; findings repeated in several windows count once.
class WindowedEngine : public Engine {
 public:
  explicit WindowedEngine(uint64_t window) : windows_(window) {}

  void Process(const Event* events, size_t n) override {
    while (n > 0) {
      size_t used = 0;
      const bool full = windows_.Add(events, n, &used);
      events += used;
      n -= used;
      if (full) Take();
    }
  }

  Status Finish(Findings* findings) override {
    if (!windows_.empty() || windows_.windows_taken() == 0) Take();
    AddFindings(findings);
    return Status::Ok();
  }

 protected:
  // `window`: its first `carried` events are the carried acquires.
  virtual void Decide(std::vector<Event> window, size_t carried) = 0;
  virtual void AddFindings(Findings* findings) = 0;
  uint64_t windows() const { return windows_.windows_taken(); }
  // A decided window's events, for the next window to fill.
  void Recycle(std::vector<Event> window) { windows_.Recycle(std::move(window)); }

 private:
  void Take() {
    size_t carried = 0;
    std::vector<Event> window = windows_.Take(&carried);
    Decide(std::move(window), carried);
  }

  TraceWindows windows_;
};

void AddWindowCount(uint64_t windows, AnalysisStats* stats) {
  stats->counters.push_back({"windows", static_cast<double>(windows)});
}

class DeadlockEngine : public WindowedEngine {
 public:
  explicit DeadlockEngine(const AnalysisOptions& options) : WindowedEngine(options.seqcheck_window) {
    options_.max_cycle_length = options.deadlock_max_cycle;
    options_.max_checks = options.deadlock_max_checks;
  }

 private:
  void Decide(std::vector<Event> window, size_t carried) override {
    // No cycle in the locks' nesting: no candidate, and no model to build.
    if (!LockOrderHasCycle(window)) {
      Recycle(std::move(window));
      return;
    }
    TraceModel model(std::move(window), carried);
    for (Deadlock& d : PredictDeadlocks(model, options_, &stats_)) {
      // The same cycle of sites in another window is the same deadlock.
      std::vector<std::pair<uint64_t, uint64_t>> key;
      for (const DeadlockThread& t : d.cycle) key.emplace_back(t.held_acquire.pc, t.blocked_acquire.pc);
      std::rotate(key.begin(), std::min_element(key.begin(), key.end()), key.end());
      if (seen_.insert(std::move(key)).second) found_.push_back(std::move(d));
    }
    Recycle(std::move(model).ReleaseEvents());
  }
  void AddFindings(Findings* findings) override {
    for (Deadlock& d : found_) findings->deadlocks.push_back(std::move(d));
    findings->stats.push_back(StatsOf("deadlock", stats_));
    AddWindowCount(windows(), &findings->stats.back());
  }

  DeadlockOptions options_;
  SeqCheckStats stats_;
  std::set<std::vector<std::pair<uint64_t, uint64_t>>> seen_;
  std::vector<Deadlock> found_;
};

class AtomicityEngine : public WindowedEngine {
 public:
  explicit AtomicityEngine(const AnalysisOptions& options) : WindowedEngine(options.seqcheck_window) {
    options_.window = options.atomicity_window;
  }

 private:
  void Decide(std::vector<Event> window, size_t carried) override {
    TraceModel model(std::move(window), carried);
    for (AtomicityViolation& v : PredictAtomicityViolations(model, options_, &stats_))
      if (seen_.insert({v.pattern, v.local_first.pc, v.remote.pc, v.local_second.pc}).second)
        found_.push_back(std::move(v));
    Recycle(std::move(model).ReleaseEvents());
  }
  void AddFindings(Findings* findings) override {
    for (AtomicityViolation& v : found_) findings->atomicity.push_back(std::move(v));
    findings->stats.push_back(StatsOf("atomicity", stats_));
    AddWindowCount(windows(), &findings->stats.back());
  }

  AtomicityOptions options_;
  SeqCheckStats stats_;
  std::set<std::tuple<std::string, uint64_t, uint64_t, uint64_t>> seen_;
  std::vector<AtomicityViolation> found_;
};

}  // namespace

std::unique_ptr<Engine> NewDeadlockEngine(const AnalysisOptions& options) {
  return std::make_unique<DeadlockEngine>(options);
}
std::unique_ptr<Engine> NewAtomicityEngine(const AnalysisOptions& options) {
  return std::make_unique<AtomicityEngine>(options);
}

}  // namespace seer::predictor::seqcheck
