#include "predictor/findings.h"

#include <algorithm>
#include <iterator>
#include <set>

namespace seer::predictor {

void Schedule::AppendRun(uint64_t first, uint64_t count) {
  if (count == 0) return;
  size_ += count;
  if (!runs_.empty() && runs_.back().first + runs_.back().count == first) {
    runs_.back().count += count;
    return;
  }
  runs_.push_back({first, count});
}

std::vector<uint64_t> Schedule::Positions() const { return Tail(size_); }

std::vector<uint64_t> Schedule::Tail(size_t n) const {
  std::vector<uint64_t> out;
  out.reserve(std::min<uint64_t>(n, size_));
  // Skip the runs before the tail, then expand the rest.
  uint64_t skip = size_ > n ? size_ - n : 0;
  for (const Run& r : runs_) {
    if (skip >= r.count) {
      skip -= r.count;
      continue;
    }
    for (uint64_t k = skip; k < r.count; ++k) out.push_back(r.first + k);
    skip = 0;
  }
  return out;
}

const char* GuaranteeName(Guarantee g) {
  switch (g) {
    case Guarantee::kFirstIsReal: return "first-race-real";
    case Guarantee::kAllReal: return "sound";
    case Guarantee::kComplete: return "complete";
    case Guarantee::kHeuristic: return "heuristic";
    case Guarantee::kWitnessed: return "witnessed";
    case Guarantee::kCaught: return "caught";
    case Guarantee::kHappened: return "happened";
  }
  return "unknown";
}

uint64_t DistinctPcs(const std::vector<RacePair>& pairs) {
  std::set<uint64_t> pcs;
  for (const RacePair& p : pairs) {
    pcs.insert(p.first.pc);
    if (p.second.tid != kThreadNotSeen) pcs.insert(p.second.pc);
  }
  return pcs.size();
}

const char* GuaranteeDescription(Guarantee g) {
  switch (g) {
    case Guarantee::kFirstIsReal:
      return "the first race reported is a real race (or a real deadlock); later ones may not be";
    case Guarantee::kAllReal: return "every race reported can happen in a reordering of this run";
    case Guarantee::kComplete:
      return "misses no predictable race; may report races that cannot happen (sound with two threads)";
    case Guarantee::kHeuristic: return "lockset discipline violations: may report false races and miss real ones";
    case Guarantee::kWitnessed: return "each finding comes with a schedule re-checked by an independent validator";
    case Guarantee::kCaught:
      return "caught in the act: in the recorded run another thread touched the bytes (a watchpoint named it) or "
             "changed their value (writer not seen) while the first was held at its access; real by construction, "
             "and only what the samples happened to cover";
    case Guarantee::kHappened:
      return "the recorded run ended in it: its threads were still blocked on each other's locks; real by "
             "construction";
  }
  return "";
}

namespace {
template <typename T>
void MoveAppend(std::vector<T>* from, std::vector<T>* to) {
  to->insert(to->end(), std::make_move_iterator(from->begin()), std::make_move_iterator(from->end()));
}
}  // namespace

void Findings::Append(Findings other) {
  MoveAppend(&other.races, &races);
  MoveAppend(&other.deadlocks, &deadlocks);
  MoveAppend(&other.lock_order, &lock_order);
  MoveAppend(&other.atomicity, &atomicity);
  MoveAppend(&other.atomicity_candidates, &atomicity_candidates);
  MoveAppend(&other.stats, &stats);
}

}  // namespace seer::predictor
