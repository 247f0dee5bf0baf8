#include "predictor/engines/watch/watch_engine.h"

#include <algorithm>
#include <map>
#include <unordered_map>
#include <utility>

namespace seer::predictor {
namespace {

class WatchEngine : public Engine {
 public:
  void Process(const Event* events, size_t n) override {
    for (size_t i = 0; i < n; ++i) {
      const Event& e = events[i];
      if (e.kind == EventKind::kWatchSample) {
        samples_[e.tid] = e;
      } else if (e.kind == EventKind::kWatchHit) {
        Hit(e);
      }
    }
  }

  Status Finish(Findings* findings) override {
    RaceResult r;
    r.engine = "watch";
    r.guarantee = Guarantee::kCaught;
    r.racy_events = racy_events_;
    for (const auto& [pcs, pair] : pairs_) r.pairs.push_back(pair);
    r.racy_locations = DistinctPcs(r.pairs);
    // In trace order of the later access, as every race engine lists its pairs.
    std::stable_sort(r.pairs.begin(), r.pairs.end(),
                     [](const RacePair& a, const RacePair& b) { return a.second.index < b.second.index; });
    findings->races.push_back(std::move(r));
    findings->stats.push_back({"watch",
                               {{"caught races", static_cast<double>(caught_)},
                                {"value changed, writer not seen", static_cast<double>(unseen_)},
                                {"hits without their sample", static_cast<double>(orphans_)}}});
    return Status::Ok();
  }

 private:
  void Hit(const Event& hit) {
    auto it = samples_.find(hit.tid);
    if (it == samples_.end()) {
      ++orphans_;  // a damaged or cut trace: its sample is not in it
      return;
    }
    const Event sample = it->second;
    samples_.erase(it);
    const auto how = static_cast<WatchHit>(hit.mode);
    RacePair p;
    p.first = EventRef::Of(sample);
    p.first.kind = static_cast<WatchAccess>(sample.mode) == WatchAccess::kWrite ? EventKind::kWrite : EventKind::kRead;
    if (how == WatchHit::kUnseenWrite || hit.object > UINT32_MAX) {
      // Only the value tells: another thread wrote the bytes while the sampled
      // access was held (the sampled thread did nothing meanwhile), no
      // watchpoint saw which. Still a race that happened.
      ++unseen_;
      p.second = EventRef{hit.index, kThreadNotSeen, 0, EventKind::kWrite, sample.object, sample.aux};
      Add(p);
      return;
    }
    ++caught_;
    // The other thread's access, at the bytes the sample watched. Its pc is a
    // hook's return address (software watchpoint), as recorded accesses have,
    // or the instruction after the access (x86 reports a data watchpoint after
    // it): both symbolize to the access's line.
    p.second = EventRef{hit.index,
                        static_cast<uint32_t>(hit.object),
                        hit.pc,
                        how == WatchHit::kWrite  ? EventKind::kWrite
                        : how == WatchHit::kRead ? EventKind::kRead
                                                 : EventKind::kWatchHit,
                        sample.object,
                        sample.aux};
    Add(p);
  }

  // Pairs caught at the same two locations are one, with a count.
  void Add(const RacePair& p) {
    racy_events_ += 2;
    auto [slot, fresh] = pairs_.emplace(std::make_pair(p.first.pc, p.second.pc), p);
    if (!fresh) ++slot->second.occurrences;
  }

  std::unordered_map<uint32_t, Event> samples_;  // by thread: its last sample
  std::map<std::pair<uint64_t, uint64_t>, RacePair> pairs_;
  uint64_t caught_ = 0;
  uint64_t unseen_ = 0;
  uint64_t orphans_ = 0;
  uint64_t racy_events_ = 0;
};

}  // namespace

std::unique_ptr<Engine> NewWatchEngine(const AnalysisOptions&) { return std::make_unique<WatchEngine>(); }

}  // namespace seer::predictor
