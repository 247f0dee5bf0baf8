#include "predictor/seqcheck/deadlocks.h"

#include <algorithm>
#include <set>
#include <string>
#include <utility>

#include "predictor/seqcheck/lock_graph.h"
#include "predictor/seqcheck/witness.h"
#include "predictor/seqcheck/witness_checker.h"

namespace seer::predictor::seqcheck {
namespace {

// An instance of `cls` by a thread not in `used`, nearest in the trace to
// `near` (looking at most `reach` instances to each side), or nullptr.
const LockEdge* Nearest(const LockEdgeClass& cls, uint32_t near, const std::vector<uint32_t>& used, size_t reach) {
  auto free = [&](const LockEdge& e) { return std::find(used.begin(), used.end(), e.tid) == used.end(); };
  const size_t at = std::lower_bound(cls.edges.begin(), cls.edges.end(), near,
                                     [](const LockEdge& e, uint32_t n) { return e.request < n; }) -
                    cls.edges.begin();
  for (size_t d = 0; d <= reach; ++d) {
    const LockEdge* best = nullptr;
    if (at + d < cls.edges.size() && free(cls.edges[at + d])) best = &cls.edges[at + d];
    if (d + 1 <= at && free(cls.edges[at - d - 1])) {
      const LockEdge* left = &cls.edges[at - d - 1];
      if (!best || near - left->request < best->request - near) best = left;
    }
    if (best) return best;
  }
  return nullptr;
}

std::string Describe(const std::vector<LockEdge>& cycle, const TraceModel& m) {
  std::string s = "a deadlock of threads";
  for (const LockEdge& e : cycle) s += " " + std::to_string(e.tid) + "@" + std::to_string(m.event(e.request).index);
  return s;
}

}  // namespace

std::vector<Deadlock> PredictDeadlocks(const TraceModel& model, const DeadlockOptions& options, SeqCheckStats* stats) {
  std::vector<Deadlock> found;
  LockGraph graph(model);
  FeasibilityChecker feasibility(model, options.feasibility);
  LazyWitnessChecker checker(model.events(), model.carried());
  std::set<std::vector<std::pair<uint64_t, uint64_t>>> reported;  // (held pc, request pc) per step

  for (const auto& locks : graph.LockCycles(options.max_cycle_length, options.max_lock_cycles)) {
    if (options.Stop(*stats)) break;
    const size_t k = locks.size();
    std::vector<const std::vector<uint32_t>*> steps(k);
    for (size_t i = 0; i < k; ++i) steps[i] = &graph.ClassesBetween(locks[i], locks[(i + 1) % k]);

    // Choose one class per step, depth first; then instances with distinct threads.
    std::vector<uint32_t> choice(k);
    uint32_t combinations = 0;
    auto try_combination = [&]() {
      std::vector<std::pair<uint64_t, uint64_t>> key;
      for (size_t i = 0; i < k; ++i) {
        const LockEdge& e = graph.classes()[choice[i]].edges.front();
        key.push_back({model.event(e.held).pc, model.event(e.request).pc});
      }
      if (reported.count(key)) return;
      // Anchor on the step with the fewest instances; take the others nearest to it.
      size_t anchor = 0;
      for (size_t i = 1; i < k; ++i)
        if (graph.classes()[choice[i]].edges.size() < graph.classes()[choice[anchor]].edges.size()) anchor = i;
      const LockEdgeClass& first = graph.classes()[choice[anchor]];
      const size_t n = first.edges.size();
      const size_t tries = std::min<size_t>(n, options.max_instances);
      for (size_t t = 0; t < tries && !options.Stop(*stats); ++t) {
        const LockEdge& e0 = first.edges[tries == 1 ? 0 : t * (n - 1) / (tries - 1)];
        std::vector<LockEdge> cycle(k);
        cycle[anchor] = e0;
        std::vector<uint32_t> used{e0.tid};
        bool complete = true;
        for (size_t i = 0; i < k && complete; ++i) {
          if (i == anchor) continue;
          const LockEdge* e = Nearest(graph.classes()[choice[i]], e0.request, used, options.max_instances * 8);
          if (!e) {
            complete = false;
          } else {
            cycle[i] = *e;
            used.push_back(e->tid);
          }
        }
        if (!complete) continue;
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
        d.witness = MakeWitness(model, r);
        if (!AcceptWitness(checker.Get().CheckDeadlock(d), Describe(cycle, model), &d.witness, stats)) continue;
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
        choice[i] = c;
        self(self, i + 1);
      }
    };
    choose(choose, 0);
  }
  return found;
}

}  // namespace seer::predictor::seqcheck
