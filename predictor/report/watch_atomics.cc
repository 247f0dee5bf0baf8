#include "predictor/report/watch_atomics.h"

#include "predictor/symbolize/symbolizer.h"

namespace seer::predictor {

size_t SetAsideAtomicWatchHits(Symbolizer& symbolizer, Findings* findings) {
  size_t set_aside = 0, hits = 0;
  for (RaceResult& r : findings->races) {
    if (r.engine != "watch") continue;
    std::vector<RacePair> kept;
    for (RacePair& p : r.pairs) {
      if (symbolizer.IsAtomicAt(p.first.object)) {
        ++set_aside;
        hits += p.occurrences;
        r.racy_events -= 2 * p.occurrences;
        continue;
      }
      kept.push_back(std::move(p));
    }
    r.pairs = std::move(kept);
    r.racy_locations = DistinctPcs(r.pairs);
  }
  for (AnalysisStats& s : findings->stats)
    if (s.analysis == "watch")
      s.counters.push_back({"on atomic variables (DWARF), not races", static_cast<double>(hits)});
  return set_aside;
}

}  // namespace seer::predictor
