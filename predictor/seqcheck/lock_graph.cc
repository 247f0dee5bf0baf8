#include "predictor/seqcheck/lock_graph.h"

#include <algorithm>
#include <map>
#include <span>
#include <tuple>

#include "predictor/seqcheck/hard_order.h"
#include "predictor/seqcheck/huge_pages.h"

namespace seer::predictor::seqcheck {

LockGraph::LockGraph(const TraceModel& m) : m_(m) {
  const uint32_t threads = m.threads();
  successors_.resize(m.locks());
  between_.resize(m.locks());
  ReserveHuge(&request_clock_, m.size());
  request_clock_.assign(m.size(), kNone);
  clock_begin_.push_back(0);
  open_begin_.push_back(0);
  std::vector<uint32_t> clock_of(threads, kNone), received_at(threads, 0);  // per thread: its last clock

  // Edges, grouped by (from, to, pc of held acquire, pc of request).
  std::map<std::tuple<uint32_t, uint32_t, uint64_t, uint64_t>, uint32_t> class_of;
  std::vector<std::vector<uint32_t>> held(threads);  // acquire nodes of open sections
  HardClocks hard(m);
  for (uint32_t i = 0; i < m.size(); ++i) {
    const Node& n = m.node(i);
    const VectorClock& c = hard.Before(i);
    auto& h = held[n.tid];
    // Only an acquisition that can wait forever is a request: a trylock fails and
    // a timed lock times out instead (their sections still count as held below).
    const bool request = (n.flags & kAcquires) && !(n.flags & (kWaits | kNonBlocking));
    if (request && !h.empty()) {
      if (clock_of[n.tid] == kNone || received_at[n.tid] != hard.received(n.tid)) {
        clock_of[n.tid] = static_cast<uint32_t>(clock_begin_.size() - 1);
        received_at[n.tid] = hard.received(n.tid);
        for (uint32_t t = 0; t < c.size(); ++t)
          if (t != n.tid && c.Get(t) != 0) clock_entries_.push_back({t, c.Get(t)});
        clock_begin_.push_back(static_cast<uint32_t>(clock_entries_.size()));
      }
      request_clock_[i] = clock_of[n.tid];
      const uint32_t open = static_cast<uint32_t>(open_begin_.size() - 1);
      for (uint32_t a : h) open_entries_.push_back({m.node(a).lock, (m.node(a).flags & kShared) != 0});
      open_begin_.push_back(static_cast<uint32_t>(open_entries_.size()));
      for (uint32_t a : h) {
        const Node& na = m.node(a);
        if (na.lock == n.lock) continue;
        auto key = std::make_tuple(na.lock, n.lock, m.event(a).pc, m.event(i).pc);
        auto [it, fresh] = class_of.try_emplace(key, static_cast<uint32_t>(classes_.size()));
        if (fresh) {
          classes_.push_back({na.lock, n.lock, {}});
          auto& row = between_[na.lock];
          auto r = std::find_if(row.begin(), row.end(), [&](auto& p) { return p.first == n.lock; });
          if (r == row.end()) {
            row.push_back({n.lock, {}});
            successors_[na.lock].push_back(n.lock);
            r = row.end() - 1;
          }
          r->second.push_back(it->second);
        }
        classes_[it->second].edges.push_back({n.tid, a, i, open});
      }
    }
    if (n.flags & kAcquires) h.push_back(i);
    if (n.flags & kReleases) {
      auto it = std::find(h.begin(), h.end(), n.match);
      if (it != h.end()) h.erase(it);
    }
  }
}

const std::vector<uint32_t>& LockGraph::ClassesBetween(uint32_t from, uint32_t to) const {
  for (const auto& [lock, list] : between_[from])
    if (lock == to) return list;
  return empty_;
}

std::vector<std::vector<uint32_t>> LockGraph::LockCycles(uint32_t max_length, size_t limit) const {
  const uint32_t n = static_cast<uint32_t>(successors_.size());
  std::vector<std::vector<uint32_t>> predecessors(n);
  for (uint32_t l = 0; l < n; ++l)
    for (uint32_t s : successors_[l]) predecessors[s].push_back(l);
  std::vector<std::vector<uint32_t>> cycles;
  std::vector<uint32_t> path, dist(n);
  std::vector<bool> on_path(n, false);
  // Shortest cycles first. Each cycle is found once, from its smallest lock,
  // through larger locks only; a lock is entered only if it can still get back
  // to the start within the length (distances on the reversed graph).
  for (uint32_t length = 2; length <= max_length && cycles.size() < limit; ++length) {
    for (uint32_t start = 0; start < n && cycles.size() < limit; ++start) {
      std::fill(dist.begin(), dist.end(), UINT32_MAX);
      dist[start] = 0;
      std::vector<uint32_t> queue{start};
      for (size_t h = 0; h < queue.size(); ++h)
        for (uint32_t p : predecessors[queue[h]])
          if (p > start && dist[p] == UINT32_MAX) {
            dist[p] = dist[queue[h]] + 1;
            queue.push_back(p);
          }
      auto dfs = [&](auto&& self, uint32_t at) -> void {
        for (uint32_t next : successors_[at]) {
          if (cycles.size() >= limit) return;
          if (next == start) {
            if (path.size() == length) cycles.push_back(path);
            continue;
          }
          if (next < start || on_path[next] || dist[next] == UINT32_MAX) continue;
          if (path.size() + dist[next] > length) continue;
          path.push_back(next);
          on_path[next] = true;
          self(self, next);
          on_path[next] = false;
          path.pop_back();
        }
      };
      path = {start};
      dfs(dfs, start);
    }
  }
  return cycles;
}

bool LockGraph::PassesFilters(const std::vector<LockEdge>& cycle) const {
  const size_t k = cycle.size();
  for (size_t i = 0; i < k; ++i) {
    const LockEdge& me = cycle[i];
    const LockEdge& next = cycle[(i + 1) % k];
    for (size_t j = i + 1; j < k; ++j)
      if (cycle[j].tid == me.tid) return false;
    const bool request_shared = m_.node(me.request).flags & kShared;
    const bool held_shared = m_.node(next.held).flags & kShared;
    if (request_shared && held_shared) return false;  // read locks do not block each other
  }
  // The sections open at each request (acquired before it, not released
  // before it: the model's ForEachOpenAt, as the constructor saw them).
  auto held = [&](size_t i) {
    const uint32_t open = cycle[i].open;
    return std::span<const std::pair<uint32_t, bool>>(open_entries_.data() + open_begin_[open],
                                                      open_entries_.data() + open_begin_[open + 1]);
  };
  for (size_t i = 0; i < k; ++i)
    for (size_t j = i + 1; j < k; ++j)
      for (auto [li, si] : held(i))
        for (auto [lj, sj] : held(j))
          if (li == lj && !(si && sj)) return false;  // both inside one lock's sections
  for (size_t i = 0; i < k; ++i) {
    for (size_t j = 0; j < k; ++j) {
      if (i == j) continue;
      const Node& rj = m_.node(cycle[j].request);
      if (HardBefore(cycle[i].request, rj.tid) > rj.pos) return false;  // j's request must run first
    }
  }
  return true;
}

uint32_t LockGraph::HardBefore(uint32_t request, uint32_t t) const {
  const uint32_t clock = request_clock_[request];
  const auto first = clock_entries_.begin() + clock_begin_[clock];
  const auto last = clock_entries_.begin() + clock_begin_[clock + 1];
  const auto it = std::lower_bound(first, last, t, [](const auto& e, uint32_t u) { return e.first < u; });
  return it != last && it->first == t ? it->second : 0;
}

}  // namespace seer::predictor::seqcheck
