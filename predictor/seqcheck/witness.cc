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

Witness MakeWitness(const TraceModel& model, const std::vector<uint32_t>& schedule) {
  Witness w;
  w.schedule.reserve(schedule.size());
  for (uint32_t node : schedule) w.schedule.push_back(model.event(node).index);
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
