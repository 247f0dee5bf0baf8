#include "predictor/seqcheck/closure.h"

#include <algorithm>
#include <span>

namespace seer::predictor::seqcheck {

WindowOrder::WindowOrder(const TraceModel& model, const std::vector<uint32_t>& lo, const std::vector<uint32_t>& hi)
    : m_(model), lo_(lo), hi_(hi) {
  const uint32_t threads = model.threads();
  offset_.assign(threads, 0);
  slot_.assign(threads, kNone);
  for (uint32_t t = 0; t < threads; ++t) {
    offset_[t] = size_;
    if (hi_[t] <= lo_[t]) continue;
    slot_[t] = static_cast<uint32_t>(active_.size());
    active_.push_back(t);
    size_ += hi_[t] - lo_[t];
  }
  width_ = static_cast<uint32_t>(active_.size());
  nodes_.reserve(size_);
  for (uint32_t t : active_)
    for (uint32_t p = lo_[t]; p < hi_[t]; ++p) nodes_.push_back(model.At(t, p));
}

void WindowOrder::AddEdge(uint32_t a, uint32_t b) {
  const Node& na = m_.node(a);
  const Node& nb = m_.node(b);
  if (na.tid == nb.tid && na.pos < nb.pos) return;  // program order has it
  edges_.push_back({Local(a), Local(b)});
}

bool WindowOrder::ComputeClocks() {
  out_begin_.assign(size_ + 1, 0);
  for (auto [a, b] : edges_) ++out_begin_[a + 1];
  for (uint32_t i = 0; i < size_; ++i) out_begin_[i + 1] += out_begin_[i];
  out_.assign(edges_.size(), 0);
  {
    std::vector<uint32_t> fill(out_begin_.begin(), out_begin_.end() - 1);
    for (auto [a, b] : edges_) out_[fill[a]++] = b;
  }
  indegree_.assign(size_, 0);
  for (uint32_t t : active_)
    for (uint32_t p = lo_[t] + 1; p < hi_[t]; ++p) indegree_[offset_[t] + (p - lo_[t])] = 1;
  for (auto [a, b] : edges_) ++indegree_[b];

  clock_.assign(static_cast<size_t>(size_) * width_, 0);
  std::vector<uint32_t> degree = indegree_;
  topo_.clear();
  topo_.reserve(size_);
  for (uint32_t u = 0; u < size_; ++u)
    if (degree[u] == 0) topo_.push_back(u);
  for (size_t head = 0; head < topo_.size(); ++head) {
    const uint32_t u = topo_[head];
    const Node& nu = m_.node(nodes_[u]);
    uint32_t* cu = &clock_[static_cast<size_t>(u) * width_];
    cu[slot_[nu.tid]] = std::max(cu[slot_[nu.tid]], nu.pos + 1);
    ForEachSuccessor(u, [&](uint32_t s) {
      uint32_t* cs = &clock_[static_cast<size_t>(s) * width_];
      for (uint32_t j = 0; j < width_; ++j) cs[j] = std::max(cs[j], cu[j]);
      if (--degree[s] == 0) topo_.push_back(s);
    });
  }
  return topo_.size() == size_;
}

uint32_t WindowOrder::Succ(uint32_t a, uint32_t t) const {
  const Node& na = m_.node(a);
  if (slot_[t] == kNone) return hi_[t];
  const uint32_t s = slot_[na.tid];
  // The positions of t that a reaches form a suffix: binary search its start.
  uint32_t lo = lo_[t], hi = hi_[t];
  while (lo < hi) {
    const uint32_t mid = lo + (hi - lo) / 2;
    const size_t local = offset_[t] + (mid - lo_[t]);
    if (clock_[local * width_ + s] > na.pos)
      hi = mid;
    else
      lo = mid + 1;
  }
  return lo;
}

namespace {

// Observation closure (rule 2 of "observation-closed") for a window read r that
// keeps its observed window write w of variable var: every other write w' to var is
// before w or after r. Per thread it suffices to look at the latest write that
// reaches r and the earliest one that w reaches.
void CloseObservation(const TraceModel& m, const WindowOrder& o, uint32_t r, uint32_t var, uint32_t w,
                      std::vector<std::pair<uint32_t, uint32_t>>* add) {
  for (uint32_t v : o.active()) {
    const std::span<const uint32_t> ws = m.writes(var, v);
    if (ws.empty()) continue;
    const uint32_t end = o.PredEnd(r, v);
    auto it = std::lower_bound(ws.begin(), ws.end(), end);
    while (it != ws.begin()) {
      --it;
      if (*it < o.lo(v)) break;
      const uint32_t cand = m.At(v, *it);
      if (cand == r) continue;
      if (cand != w && !o.Reaches(cand, w)) add->push_back({cand, w});
      break;
    }
    for (auto jt = std::lower_bound(ws.begin(), ws.end(), o.Succ(w, v)); jt != ws.end() && *jt < o.hi(v); ++jt) {
      const uint32_t cand = m.At(v, *jt);
      if (cand == w || cand == r) continue;
      if (!o.Reaches(r, cand)) add->push_back({r, cand});
      break;
    }
  }
}

// Lock closure: for complete sections S1 (a1, r1) and S2 (a2, r2) in conflict,
// a1 before r2 forces r1 before a2. Per thread the latest such a1 suffices.
void CloseLock(const TraceModel& m, const WindowOrder& o, uint32_t a2,
               std::vector<std::pair<uint32_t, uint32_t>>* add) {
  const Node& n2 = m.node(a2);
  const uint32_t r2 = n2.match;
  const bool shared = (n2.flags & kShared) != 0;
  for (uint32_t v : o.active()) {
    if (v == n2.tid) continue;
    const std::vector<uint32_t>& as = m.acquires(n2.lock, v, shared);
    auto it = std::lower_bound(as.begin(), as.end(), o.PredEnd(r2, v));
    if (it == as.begin()) continue;
    --it;
    if (*it < o.lo(v)) continue;
    const uint32_t a1 = m.At(v, *it);
    const uint32_t r1 = m.node(a1).match;
    if (r1 == kNone || !o.InWindow(r1)) continue;  // open: ordered by the initial lock edges
    if (!o.Reaches(r1, a2)) add->push_back({r1, a2});
  }
}

}  // namespace

bool CloseOrder(const TraceModel& m, WindowOrder* o, const std::function<bool(uint32_t)>& needy, uint32_t max_rounds,
                uint32_t* rounds, std::string* why) {
  std::vector<std::pair<uint32_t, uint32_t>> add;
  for (*rounds = 0; *rounds < max_rounds; ++*rounds) {
    if (!o->ComputeClocks()) {
      *why = "the orders form a cycle";
      return false;
    }
    add.clear();
    for (uint32_t u = 0; u < o->size(); ++u) {
      const uint32_t node = o->NodeOf(u);
      const Node& n = m.node(node);
      if ((n.flags & kReads) && needy(node))
        for (const Access& a : m.accesses(node))
          if (a.obs != kNone && o->InWindow(a.obs)) CloseObservation(m, *o, node, a.var, a.obs, &add);
      if ((n.flags & kAcquires) && n.match != kNone && o->InWindow(n.match)) CloseLock(m, *o, node, &add);
    }
    if (add.empty()) return true;
    for (auto [a, b] : add) o->AddEdge(a, b);
  }
  *why = "the closure did not converge within the round limit";
  return false;
}

}  // namespace seer::predictor::seqcheck
