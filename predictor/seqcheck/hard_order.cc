#include "predictor/seqcheck/hard_order.h"

#include <algorithm>

namespace seer::predictor::seqcheck {

HardClocks::HardClocks(const TraceModel& m) : m_(m), clock_(m.threads()), received_(m.threads(), 0) {}

const VectorClock& HardClocks::Before(uint32_t i) {
  if (last_ != kNone) {
    // Kept for the edges out of the previous node, with its own entry: forks,
    // signals, and a window's carried acquires.
    const Node& p = m_.node(last_);
    if ((p.flags & (kForks | kSignals)) || last_ < m_.carried()) {
      VectorClock& source = sources_[last_];
      source = clock_[p.tid];
      source.Set(p.tid, p.pos + 1);
    }
  }
  last_ = i;
  const Node& n = m_.node(i);
  VectorClock& c = clock_[n.tid];
  ForEachHardSource(m_, i, [&](uint32_t s) {
    ++received_[n.tid];
    auto it = sources_.find(s);
    if (it == sources_.end()) {
      // A joined child's last node: its thread's final clock, and all of it.
      const Node& last = m_.node(s);
      c.Join(clock_[last.tid]);
      c.Set(last.tid, std::max(c.Get(last.tid), last.pos + 1));
      return;
    }
    c.Join(it->second);
    if (m_.node(s).flags & kForks) sources_.erase(it);  // a fork orders one child's start only
  });
  return c;
}

HardReach::HardReach(const TraceModel& m) : m_(m), first_(m.threads(), UINT32_MAX), end_(m.threads(), 0) {}

void HardReach::ScanFrom(uint32_t from, uint32_t to) {
  for (uint32_t t : touched_first_) first_[t] = UINT32_MAX;
  touched_first_.clear();
  auto reach = [&](const Node& n) {
    if (first_[n.tid] == UINT32_MAX) touched_first_.push_back(n.tid);
    first_[n.tid] = n.pos;
  };
  reach(m_.node(from));
  for (uint32_t i = from + 1; i <= to && i < m_.size(); ++i) {
    const Node& n = m_.node(i);
    if (n.pos >= first_[n.tid]) continue;  // already reached by program order
    bool reached = false;
    ForEachHardSource(m_, i, [&](uint32_t s) { reached = reached || From(s); });
    if (reached) reach(n);
  }
}

void HardReach::ScanTo(uint32_t to, uint32_t from) {
  for (uint32_t t : touched_end_) end_[t] = 0;
  touched_end_.clear();
  auto reach = [&](const Node& n) {
    if (end_[n.tid] == 0) touched_end_.push_back(n.tid);
    end_[n.tid] = std::max(end_[n.tid], n.pos + 1);
  };
  reach(m_.node(to));
  // Backwards, every node's hard successors are decided before it: a node that
  // reaches `to` makes its sources reach it too.
  for (uint32_t i = to + 1; i-- > from;) {
    if (!To(i)) continue;
    ForEachHardSource(m_, i, [&](uint32_t s) { reach(m_.node(s)); });
  }
}

}  // namespace seer::predictor::seqcheck
