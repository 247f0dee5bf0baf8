#include "predictor/seqcheck/engines.h"

#include <algorithm>
#include <atomic>
#include <deque>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "predictor/common/job_pool.h"
#include "predictor/seqcheck/atomicity.h"
#include "predictor/seqcheck/deadlocks.h"
#include "predictor/seqcheck/lock_order.h"
#include "predictor/seqcheck/trace_model.h"
#include "predictor/seqcheck/trace_windows.h"

namespace seer::predictor::seqcheck {
namespace {

// Counts only: a report is the same from one run to the next and for any
// --jobs (the time in the checks is the benchmarks' figure, SeqCheckStats).
AnalysisStats StatsOf(const char* analysis, const SeqCheckStats& s) {
  return {analysis,
          {{"candidates", static_cast<double>(s.candidates)},
           {"filtered", static_cast<double>(s.filtered)},
           {"forced", static_cast<double>(s.forced)},
           {"checks", static_cast<double>(s.checks)},
           {"feasible", static_cast<double>(s.feasible)},
           {"invalid_witnesses", static_cast<double>(s.invalid_witnesses)}}};
}

// Feeds the events to TraceWindows and decides each full window as it closes,
// the last one at Finish; findings repeated in several windows count once (the
// first window's: the engine's WindowJoiner). A window's decision depends only
// on its events and on the checks left of the engine's budget over the whole
// trace. With jobs, windows are decided as tasks, at most one per job at once,
// and taken in window order: each speculatively on the checks left when it
// closed, and again on what is really left when the windows before it took
// checks it needed (only near the end of the budget), so that the findings are
// those of one thread. With a WindowHook (a shard, a merge) the hook says which
// windows to decide and with how many checks, and takes their results.
class WindowedEngine : public Engine {
 public:
  WindowedEngine(const char* name, const AnalysisOptions& options, uint64_t max_checks,
                 std::unique_ptr<WindowJoiner> joiner)
      : name_(name),
        window_(options.seqcheck_window),
        windows_(options.seqcheck_window),
        max_checks_(max_checks),
        hook_(options.window_hook),
        joiner_(std::move(joiner)) {}
  // Derived engines call WaitForWindows() first in their destructors: a window
  // still on the pool runs their Decide, which must not outlive them.
  ~WindowedEngine() override = default;

  void UseJobs(JobPool* jobs) override { jobs_ = jobs; }
  void ShowProgress(AnalysisProgress* progress) override { progress_ = progress; }
  Status Begin(const TraceInfo& info) override {
    // For the progress line: the trace's count may be short (a cut trace), and
    // a window may close late (its carried acquires), so this is an estimate.
    const uint64_t events = info.counters.events;
    expected_windows_ = window_ == 0 || events == 0 ? 1 : (events + window_ - 1) / window_;
    AskHook();
    return Status::Ok();
  }

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
    if (jobs_ != nullptr) {
      jobs_->HelpUntil([&] {
        TakeDecided();
        return taken_.empty();
      });
    }
    if (hook_ != nullptr)
      hook_->Windows(name_, windows());
    else
      joiner_->AddFindings(stats_, windows(), findings);
    return Status::Ok();
  }

 protected:
  // A stopped analysis (a decode error) still has windows on the pool: waits
  // until every one is decided (running queued tasks meanwhile).
  void WaitForWindows() {
    if (jobs_ != nullptr) jobs_->HelpUntil([&] { return AllDecided(); });
  }

  // Decides a window whose first `carried` events are the carried acquires,
  // with at most `budget` feasibility checks: its findings into *found, its
  // work into *stats. Must not touch the engine's state: it runs on any thread.
  // `cancelled` (null without jobs) is set meanwhile when the result will not
  // be used: it may stop early then.
  virtual void Decide(std::vector<Event>* window, size_t carried, uint64_t budget, const std::atomic<bool>* cancelled,
                      Findings* found, SeqCheckStats* stats) const = 0;
  uint64_t windows() const { return windows_.windows_taken(); }

 private:
  struct Window {
    uint64_t number = 0;
    std::vector<Event> events;
    size_t carried = 0;
    bool skipped = false;  // a hook's window this run does not decide
    uint64_t budget = 0;   // checks it was decided with
    Findings found;
    SeqCheckStats stats;
    bool decided = false;  // under mu_
    // The windows before it spent every check: it is decided on none (what
    // its task finds is dropped), so the task may stop.
    std::atomic<bool> cancelled{false};
  };

  uint64_t ChecksLeft() const { return stats_.checks < max_checks_ ? max_checks_ - stats_.checks : 0; }

  // With a hook: whether the window that fills next is decided, and its budget.
  void AskHook() {
    if (hook_ == nullptr) return;
    hook_budget_ = 0;
    const bool decides = hook_->Decides(name_, windows_.windows_taken(), max_checks_, &hook_budget_);
    windows_.SkipCurrent(!decides);
  }

  void Take() {
    auto w = std::make_unique<Window>();
    w->number = windows_.windows_taken();
    w->skipped = windows_.skipping();
    w->events = windows_.Take(&w->carried);
    w->budget = hook_ != nullptr ? hook_budget_ : ChecksLeft();
    AskHook();
    if (w->skipped) w->budget = 0;
    if (jobs_ == nullptr) {
      // No checks left: nothing to decide (what deciding would find, exactly).
      if (w->budget > 0) Decide(&w->events, w->carried, w->budget, nullptr, &w->found, &w->stats);
      Use(w.get());
      return;
    }
    TakeDecided();
    if (!spare_.empty()) {
      windows_.Recycle(std::move(spare_.back()));
      spare_.pop_back();
    }
    Window* raw = w.get();
    if (w->budget == 0) {
      w->decided = true;
    } else {
      jobs_->Submit([this, raw] {
        Decide(&raw->events, raw->carried, raw->budget, &raw->cancelled, &raw->found, &raw->stats);
        std::lock_guard<std::mutex> lock(mu_);
        raw->decided = true;
      });
    }
    taken_.push_back(std::move(w));
    // Memory: at most one window per job held at once.
    jobs_->HelpUntil([&] {
      TakeDecided();
      return taken_.size() < jobs_->threads();
    });
  }

  // Takes the decided windows at the front, in window order.
  void TakeDecided() {
    while (!taken_.empty()) {
      {
        std::lock_guard<std::mutex> lock(mu_);
        if (!taken_.front()->decided) return;
      }
      Window* w = taken_.front().get();
      // The windows before it took checks it used: decide it again on what
      // they left (an exact run on fewer checks would have stopped earlier).
      // A hook chose the budget: it is not the checks left here.
      const uint64_t left = ChecksLeft();
      if (hook_ == nullptr && w->budget > left && w->stats.checks >= left) {
        w->found = Findings();
        w->stats = SeqCheckStats();
        w->budget = left;
        if (left > 0) Decide(&w->events, w->carried, left, nullptr, &w->found, &w->stats);
      }
      Use(w);
      taken_.pop_front();
      // No check left: the windows still on the pool are decided again on
      // none above, whatever they find; they need not go on (with a checks
      // budget spent in the first windows, they were most of `--jobs`' cost).
      if (hook_ == nullptr && ChecksLeft() == 0)
        for (const auto& later : taken_) later->cancelled.store(true, std::memory_order_relaxed);
    }
  }

  void Use(Window* w) {
    if (hook_ == nullptr) {
      AddSeqCheckStats(w->stats, &stats_);
      joiner_->Keep(&w->found);
    } else if (!w->skipped) {
      hook_->Decided(name_, w->number, w->budget, std::move(w->found), w->stats);
    }
    ++windows_used_;
    if (progress_ != nullptr)
      progress_->Decided(name_, "windows", windows_used_, std::max(expected_windows_, windows_used_));
    // A decided window's vector, for the next window to fill (a window is
    // tens of MB, and fresh memory costs a page fault per 4 KB as it fills).
    if (jobs_ == nullptr)
      windows_.Recycle(std::move(w->events));
    else if (spare_.size() < jobs_->threads())
      spare_.push_back(std::move(w->events));
  }

  bool AllDecided() {
    std::lock_guard<std::mutex> lock(mu_);
    for (const auto& w : taken_)
      if (!w->decided) return false;
    return true;
  }

  const char* const name_;
  const uint64_t window_;
  TraceWindows windows_;
  const uint64_t max_checks_;
  WindowHook* const hook_;
  uint64_t hook_budget_ = 0;  // the hook's budget for the window filling now
  const std::unique_ptr<WindowJoiner> joiner_;
  AnalysisProgress* progress_ = nullptr;
  uint64_t expected_windows_ = 1;
  uint64_t windows_used_ = 0;  // decided and kept, in window order
  SeqCheckStats stats_;        // of the windows taken so far
  JobPool* jobs_ = nullptr;
  std::mutex mu_;                              // the windows' `decided`
  std::deque<std::unique_ptr<Window>> taken_;  // windows on the pool or not taken yet
  std::vector<std::vector<Event>> spare_;      // with jobs: decided windows' vectors
};

void AddWindowCount(uint64_t windows, AnalysisStats* stats) {
  stats->counters.push_back({"windows", static_cast<double>(windows)});
}

class DeadlockJoiner final : public WindowJoiner {
 public:
  void Keep(Findings* found) override {
    for (Deadlock& d : found->deadlocks) {
      // The same cycle of sites in another window is the same deadlock.
      std::vector<std::pair<uint64_t, uint64_t>> key;
      for (const DeadlockThread& t : d.cycle) key.emplace_back(t.held_acquire.pc, t.blocked_acquire.pc);
      std::rotate(key.begin(), std::min_element(key.begin(), key.end()), key.end());
      if (seen_.insert(std::move(key)).second) found_.push_back(std::move(d));
    }
  }
  void AddFindings(const SeqCheckStats& stats, uint64_t windows, Findings* findings) override {
    for (Deadlock& d : found_) findings->deadlocks.push_back(std::move(d));
    findings->stats.push_back(StatsOf("deadlock", stats));
    AddWindowCount(windows, &findings->stats.back());
  }

 private:
  std::set<std::vector<std::pair<uint64_t, uint64_t>>> seen_;
  std::vector<Deadlock> found_;
};

class AtomicityJoiner final : public WindowJoiner {
 public:
  void Keep(Findings* found) override {
    for (AtomicityViolation& v : found->atomicity)
      if (seen_.insert(KeyOf(v)).second) found_.push_back(std::move(v));
    for (AtomicityViolation& v : found->atomicity_candidates)
      if (candidates_seen_.insert(KeyOf(v)).second) candidates_.push_back(std::move(v));
  }
  void AddFindings(const SeqCheckStats& stats, uint64_t windows, Findings* findings) override {
    for (AtomicityViolation& v : found_) findings->atomicity.push_back(std::move(v));
    // A candidate of one window that another window proves is that violation.
    for (AtomicityViolation& v : candidates_)
      if (seen_.count(KeyOf(v)) == 0) findings->atomicity_candidates.push_back(std::move(v));
    findings->stats.push_back(StatsOf("atomicity", stats));
    findings->stats.back().counters.push_back({"outside_region", static_cast<double>(stats.outside_region)});
    AddWindowCount(windows, &findings->stats.back());
  }

 private:
  using Key = std::tuple<std::string, uint64_t, uint64_t, uint64_t>;
  static Key KeyOf(const AtomicityViolation& v) {
    return {v.pattern, v.local_first.pc, v.remote.pc, v.local_second.pc};
  }

  std::set<Key> seen_, candidates_seen_;
  std::vector<AtomicityViolation> found_, candidates_;
};

class DeadlockEngine final : public WindowedEngine {
 public:
  explicit DeadlockEngine(const AnalysisOptions& options)
      : WindowedEngine("deadlock", options, options.deadlock_max_checks, std::make_unique<DeadlockJoiner>()) {
    options_.max_cycle_length = options.deadlock_max_cycle;
    options_.max_checks = options.deadlock_max_checks;
  }
  ~DeadlockEngine() override { WaitForWindows(); }

 private:
  void Decide(std::vector<Event>* window, size_t carried, uint64_t budget, const std::atomic<bool>* cancelled,
              Findings* found, SeqCheckStats* stats) const override {
    // No cycle in the locks' nesting: no candidate, and no model to build.
    if (!LockOrderHasCycle(*window)) return;
    DeadlockOptions options = options_;
    options.max_checks = budget;
    options.cancelled = cancelled;
    if (options.Stop(*stats)) return;
    TraceModel model(std::move(*window), carried);
    found->deadlocks = PredictDeadlocks(model, options, stats);
    *window = std::move(model).ReleaseEvents();
  }

  DeadlockOptions options_;
};

class AtomicityEngine final : public WindowedEngine {
 public:
  explicit AtomicityEngine(const AnalysisOptions& options)
      : WindowedEngine("atomicity", options, AtomicityOptions().max_checks, std::make_unique<AtomicityJoiner>()) {
    options_.window = options.atomicity_window;
  }
  ~AtomicityEngine() override { WaitForWindows(); }

 private:
  void Decide(std::vector<Event>* window, size_t carried, uint64_t budget, const std::atomic<bool>* cancelled,
              Findings* found, SeqCheckStats* stats) const override {
    AtomicityOptions options = options_;
    options.max_checks = budget;
    options.cancelled = cancelled;
    if (options.Stop(*stats)) return;
    TraceModel model(std::move(*window), carried);
    found->atomicity = PredictAtomicityViolations(model, options, stats, &found->atomicity_candidates);
    *window = std::move(model).ReleaseEvents();
  }

  AtomicityOptions options_;
};

}  // namespace

std::unique_ptr<Engine> NewDeadlockEngine(const AnalysisOptions& options) {
  return std::make_unique<DeadlockEngine>(options);
}
std::unique_ptr<Engine> NewAtomicityEngine(const AnalysisOptions& options) {
  return std::make_unique<AtomicityEngine>(options);
}

bool IsWindowedEngine(const std::string& name) { return name == "deadlock" || name == "atomicity"; }

bool SpreadsWindowsOverShards(const std::string& name) { return name == "atomicity"; }

std::unique_ptr<WindowJoiner> NewWindowJoiner(const std::string& name) {
  if (name == "deadlock") return std::make_unique<DeadlockJoiner>();
  if (name == "atomicity") return std::make_unique<AtomicityJoiner>();
  return nullptr;
}

void AddSeqCheckStats(const SeqCheckStats& from, SeqCheckStats* to) {
  to->candidates += from.candidates;
  to->filtered += from.filtered;
  to->forced += from.forced;
  to->outside_region += from.outside_region;
  to->checks += from.checks;
  to->feasible += from.feasible;
  to->invalid_witnesses += from.invalid_witnesses;
  to->window_events += from.window_events;
  to->check_seconds += from.check_seconds;
}

}  // namespace seer::predictor::seqcheck
