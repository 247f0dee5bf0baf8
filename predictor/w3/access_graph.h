// The per-variable bookkeeping of PWR^{E+E} (TR §4.2-4.3) shared by the exact
// and the linear Lockset-W3 engines: the set RW(x) of mutually concurrent accesses,
// the edge constraints g ≺ e (g left RW(x) because e came after it), the candidate
// pairs conc(x), and the traversal that turns a concurrent pair (e, f) into every
// (g, f) with g reachable from e over edges and still concurrent with f.
#pragma once

#include <cstdint>
#include <vector>

#include "predictor/common/vector_clock.h"
#include "predictor/findings.h"
#include "predictor/w3/lockset_table.h"

namespace seer::w3 {

// The edge predecessors of an access: at most one per other thread in practice
// (RW(x) holds mutually concurrent accesses), so a few are kept inline.
class PredList {
 public:
  void clear() {
    size_ = 0;
    more_.clear();
  }
  void push_back(uint64_t id) {
    if (size_ < kInline) inline_[size_] = id;
    else more_.push_back(id);
    ++size_;
  }
  uint32_t size() const { return size_; }
  uint64_t operator[](uint32_t i) const { return i < kInline ? inline_[i] : more_[i - kInline]; }

 private:
  static constexpr uint32_t kInline = 4;
  uint64_t inline_[kInline];
  uint32_t size_ = 0;
  std::vector<uint64_t> more_;
};

// One read or write as the graph remembers it: its epoch tid#clock, lockset,
// kind and edge predecessors. The event to report is kept apart (cold data).
struct AccessNode {
  uint32_t tid = 0;
  ClockValue clock = 0;
  uint32_t lockset = 0;
  bool write = false;
  uint64_t mark = 0;  // traversal stamp (the id of the last f that visited it, + 1)
  PredList preds;     // edges g ≺ this, as node ids

  // This access is PWR-ordered before the event whose clock is `v`.
  bool Before(const VectorClock& v) const { return clock <= v.Get(tid); }
};

// Splits RW(x) for a new access `f` with clock `v`: ordered entries become f's
// predecessors (edges), concurrent ones its candidate partners (conc); RW(x)
// keeps the concurrent ones and f. `Node(id)` returns the node or null.
template <typename NodeFn>
void SplitConcurrent(std::vector<uint64_t>* rw, const VectorClock& v, uint64_t f, NodeFn&& node,
                     std::vector<uint64_t>* preds, std::vector<uint64_t>* partners) {
  size_t kept = 0;
  for (uint64_t id : *rw) {
    const AccessNode* n = node(id);
    if (n == nullptr) continue;  // forgotten by a bounded store
    if (n->Before(v)) {
      preds->push_back(id);
    } else {
      partners->push_back(id);
      (*rw)[kept++] = id;
    }
  }
  rw->resize(kept);
  rw->push_back(f);
}

// From the concurrent partners of `f` (clock `v`), walks edges backwards and calls
// `report(id, g)` for every reached access g that is concurrent with f, conflicts with
// it and shares no lock with it (TR Def. 4.4 and Lemma 4.7). A reached g ordered
// before f is not expanded: everything before g is before f too (TR App. G.3).
template <typename NodeFn, typename ReportFn>
void ReportReachable(const AccessNode& f, uint64_t f_id, const VectorClock& v, const std::vector<uint64_t>& partners,
                     const LocksetTable& locksets, NodeFn&& node, ReportFn&& report, std::vector<uint64_t>* stack) {
  stack->clear();
  for (uint64_t id : partners) {
    AccessNode* n = node(id);
    if (n != nullptr && n->mark != f_id + 1) {
      n->mark = f_id + 1;
      stack->push_back(id);
    }
  }
  while (!stack->empty()) {
    const uint64_t g_id = stack->back();
    AccessNode* g = node(g_id);
    stack->pop_back();
    if (g->Before(v)) continue;
    if ((g->write || f.write) && locksets.Disjoint(g->lockset, f.lockset)) report(g_id, *g);
    for (uint32_t i = 0; i < g->preds.size(); ++i) {
      const uint64_t p = g->preds[i];
      AccessNode* n = node(p);
      if (n != nullptr && n->mark != f_id + 1) {
        n->mark = f_id + 1;
        stack->push_back(p);
      }
    }
  }
}

}  // namespace seer::w3
