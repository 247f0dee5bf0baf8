#include "predictor/seqcheck/deadlocks.h"

#include <algorithm>
#include <set>
#include <string>
#include <utility>

#include "predictor/seqcheck/lock_graph.h"
#include "predictor/seqcheck/witness.h"
#include "predictor/seqcheck/witness_checker.h"

namespace seer::seqcheck {
namespace {

// The instance of `cls` whose request is nearest in the trace to `near`.
const LockEdge& Nearest(const LockEdgeClass& cls, uint32_t near) {
  auto it = std::lower_bound(cls.edges.begin(), cls.edges.end(), near,
                             [](const LockEdge& e, uint32_t n) { return e.request < n; });
  if (it == cls.edges.end()) return cls.edges.back();
  if (it != cls.edges.begin() && near - (it - 1)->request < it->request - near) return *(it - 1);
  return *it;
}

std::string Describe(const std::vector<LockEdge>& cycle, const TraceModel& m) {
  std::string s = "a deadlock of threads";
  for (const LockEdge& e : cycle) s += " " + std::to_string(e.tid) + "@" + std::to_string(m.event(e.request).index);
  return s;
}

}  // namespace

std::vector<Deadlock> PredictDeadlocks(const TraceModel& model, const DeadlockOptions& options,
                                       SeqCheckStats* stats) {
  std::vector<Deadlock> found;
  LockGraph graph(model);
  FeasibilityChecker feasibility(model, options.feasibility);
  WitnessChecker checker(model.events());
  std::set<std::vector<std::pair<uint64_t, uint64_t>>> reported;  // (held pc, request pc) per step

  for (const auto& locks : graph.LockCycles(options.max_cycle_length, options.max_lock_cycles)) {
    const size_t k = locks.size();
    std::vector<const std::vector<uint32_t>*> steps(k);
    for (size_t i = 0; i < k; ++i) steps[i] = &graph.ClassesBetween(locks[i], locks[(i + 1) % k]);

    // Choose one class per step, with distinct threads, depth first.
    std::vector<uint32_t> choice(k);
    uint32_t combinations = 0;
    auto try_combination = [&]() {
      std::vector<std::pair<uint64_t, uint64_t>> key;
      for (size_t i = 0; i < k; ++i) {
        const LockEdge& e = graph.classes()[choice[i]].edges.front();
        key.push_back({model.event(e.held).pc, model.event(e.request).pc});
      }
      if (reported.count(key)) return;
      const LockEdgeClass& first = graph.classes()[choice[0]];
      const size_t n = first.edges.size();
      const size_t tries = std::min<size_t>(n, options.max_instances);
      for (size_t t = 0; t < tries; ++t) {
        const LockEdge& e0 = first.edges[tries == 1 ? 0 : t * (n - 1) / (tries - 1)];
        std::vector<LockEdge> cycle{e0};
        for (size_t i = 1; i < k; ++i) cycle.push_back(Nearest(graph.classes()[choice[i]], e0.request));
        ++stats->candidates;
        if (!graph.PassesFilters(cycle)) {
          ++stats->filtered;
          continue;
        }
        Query q;
        for (const LockEdge& e : cycle) q.threads.push_back({e.tid, model.node(e.request).pos, true, true});
        FeasibilityResult r = TimedCheck(&feasibility, q, stats);
        if (!r.feasible) continue;
        Deadlock d;
        d.engine = "deadlock";
        d.guarantee = Guarantee::kWitnessed;
        for (size_t i = 0; i < k; ++i) {
          const LockEdge& e = cycle[i];
          DeadlockThread th;
          th.tid = e.tid;
          th.held_lock = model.lock_object(model.node(e.held).lock);
          th.held_acquire = EventRef::Of(model.event(e.held));
          th.wanted_lock = model.lock_object(model.node(e.request).lock);
          th.blocked_acquire = EventRef::Of(model.event(e.request));
          d.cycle.push_back(th);
        }
        d.witness = MakeWitness(model, r.schedule);
        if (!AcceptWitness(checker.CheckDeadlock(d), Describe(cycle, model), &d.witness, stats)) continue;
        found.push_back(std::move(d));
        reported.insert(key);
        return;
      }
    };
    auto choose = [&](auto&& self, size_t i) -> void {
      if (combinations >= options.max_combinations) return;
      if (i == k) {
        ++combinations;
        try_combination();
        return;
      }
      for (uint32_t c : *steps[i]) {
        const uint32_t tid = graph.classes()[c].edges.front().tid;
        bool used = false;
        for (size_t j = 0; j < i; ++j) used = used || graph.classes()[choice[j]].edges.front().tid == tid;
        if (used) continue;
        choice[i] = c;
        self(self, i + 1);
      }
    };
    choose(choose, 0);
  }
  return found;
}

}  // namespace seer::seqcheck
