#include "predictor/seqcheck/witness.h"

#include <chrono>
#include <cstdio>

namespace seer::predictor::seqcheck {

FeasibilityResult TimedCheck(FeasibilityChecker* checker, const Query& query, SeqCheckStats* stats) {
  const auto start = std::chrono::steady_clock::now();
  FeasibilityResult r = checker->Check(query);
  stats->check_seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ++stats->checks;
  stats->window_events += r.window;
  if (r.feasible) ++stats->feasible;
  return r;
}

Witness MakeWitness(const TraceModel& model, const FeasibilityResult& result) {
  Witness w;
  // The fixed prefix is nodes [0, prefix) in trace order: runs of consecutive
  // positions, each found by a binary search instead of a step per node (it can
  // be a million nodes). Positions ascend, so index - node never decreases and
  // is constant exactly along a run.
  const std::vector<Event>& events = model.events();
  const auto offset = [&](uint32_t node) { return events[node].index - node; };
  for (uint32_t node = 0; node < result.prefix;) {
    const uint64_t d = offset(node);
    uint32_t lo = node + 1, hi = result.prefix;  // the run ends at the first node in [lo, hi] with another offset
    while (lo < hi) {
      const uint32_t mid = lo + (hi - lo) / 2;
      if (offset(mid) == d)
        lo = mid + 1;
      else
        hi = mid;
    }
    w.schedule.AppendRun(events[node].index, lo - node);
    node = lo;
  }
  for (uint32_t node : result.schedule) w.schedule.Append(model.event(node).index);
  return w;
}

bool AcceptWitness(const Status& verdict, const std::string& finding, Witness* witness, SeqCheckStats* stats) {
  if (verdict.ok()) {
    witness->validated = true;
    return true;
  }
  ++stats->invalid_witnesses;
  std::fprintf(stderr,
               "seer: BUG: SeqCheck found %s but its witness schedule fails validation: %s\n"
               "seer: the finding is not reported; please report this with the trace\n",
               finding.c_str(), verdict.ToString().c_str());
  return false;
}

}  // namespace seer::predictor::seqcheck
