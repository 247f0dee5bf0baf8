#include "predictor/report/watch_atomics.h"

#include <set>

#include "predictor/symbolize/symbolizer.h"

namespace seer {

size_t SetAsideAtomicWatchHits(Symbolizer& symbolizer, Findings* findings) {
  size_t set_aside = 0, hits = 0;
  for (RaceResult& r : findings->races) {
    if (r.engine != "watch") continue;
    std::vector<RacePair> kept;
    std::set<uint64_t> racy_pcs;
    for (RacePair& p : r.pairs) {
      if (symbolizer.IsAtomicAt(p.first.object)) {
        ++set_aside;
        hits += p.occurrences;
        r.racy_events -= 2 * p.occurrences;
        continue;
      }
      racy_pcs.insert(p.first.pc);
      if (p.second.tid != kThreadNotSeen) racy_pcs.insert(p.second.pc);
      kept.push_back(std::move(p));
    }
    r.pairs = std::move(kept);
    r.racy_locations = racy_pcs.size();
  }
  for (AnalysisStats& s : findings->stats)
    if (s.analysis == "watch")
      s.counters.push_back({"on atomic variables (DWARF), not races", static_cast<double>(hits)});
  return set_aside;
}

}  // namespace seer
