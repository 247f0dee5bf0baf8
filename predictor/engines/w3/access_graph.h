// The per-variable bookkeeping of PWR^{E+E} (TR §4.2-4.3) shared by the exact
// and the linear Lockset-W3 engines: the set RW(x) of mutually concurrent accesses,
// the edge constraints g ≺ e (g left RW(x) because e came after it), the candidate
// pairs conc(x), and the traversal that turns a concurrent pair (e, f) into every
// (g, f) with g reachable from e over edges and still concurrent with f.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "predictor/common/vector_clock.h"
#include "predictor/engines/w3/lockset_table.h"
#include "predictor/findings.h"

namespace seer::predictor::w3 {

// A reference to an access with its epoch, so that the common test "is it
// ordered before f" needs no look at the access itself (a cache miss).
struct NodeRef {
  uint64_t id = 0;
  uint32_t tid = 0;
  ClockValue clock = 0;

  // The access is PWR-ordered before the event whose clock is `v`.
  bool Before(const VectorClock& v) const { return clock <= v.Get(tid); }
};

// The edge predecessors of an access, by id: at most one per other thread in
// practice (RW(x) holds mutually concurrent accesses), so a few are kept inline.
class PredList {
 public:
  // Keeps the overflow storage: a reused node slot does not allocate again.
  void clear() {
    size_ = 0;
    if (more_) more_->clear();
  }
  void push_back(uint64_t id) {
    if (size_ < kInline) {
      inline_[size_] = id;
    } else {
      if (!more_) more_ = std::make_unique<std::vector<uint64_t>>();
      more_->push_back(id);
    }
    ++size_;
  }
  uint32_t size() const { return size_; }
  uint64_t operator[](uint32_t i) const { return i < kInline ? inline_[i] : (*more_)[i - kInline]; }

 private:
  static constexpr uint32_t kInline = 4;
  uint32_t size_ = 0;
  uint64_t inline_[kInline];
  std::unique_ptr<std::vector<uint64_t>> more_;
};

// One read or write of one 8-byte word as the graph remembers it: epoch,
// lockset, kind, the bytes of the word it touched, and edge predecessors, in one
// cache line; the event to report and the traversal stamp are kept by the store.
struct alignas(64) AccessNode {
  uint32_t tid = 0;
  ClockValue clock = 0;
  uint32_t lockset = 0;
  bool write = false;
  bool atomic = false;  // two atomic accesses never race
  uint8_t bytes = 0;    // bytes of the word; a free clears them
  PredList preds;       // edges g ≺ this

  // The access is PWR-ordered before the event whose clock is `v`.
  bool Before(const VectorClock& v) const { return clock <= v.Get(tid); }
};
static_assert(sizeof(AccessNode) == 64);

// Splits RW(x) for a new access `f` with clock `v`: ordered entries become f's
// predecessors (edges), concurrent ones its candidate partners (conc); RW(x)
// keeps the concurrent ones and f.
inline void SplitConcurrent(std::vector<NodeRef>* rw, const VectorClock& v, const NodeRef& f,
                            std::vector<NodeRef>* preds, std::vector<NodeRef>* partners) {
  size_t kept = 0;
  for (const NodeRef& r : *rw) {
    if (r.Before(v)) {
      preds->push_back(r);
    } else {
      partners->push_back(r);
      (*rw)[kept++] = r;
    }
  }
  rw->resize(kept);
  rw->push_back(f);
}

// From the concurrent partners of `f` (clock `v`), walks edges backwards and calls
// `report(id)` for every reached access g that is concurrent with f, conflicts with
// it (shares a byte with it, one of them writes, not both atomic) and shares no
// lock with it (TR Def. 4.4 and Lemma 4.7). Accesses of other bytes of the word
// are walked through like any other: reachability only follows the order. A reached g ordered
// before f is not expanded: everything before g is before f too (TR App. G.3).
// `nodes.Get(id)` returns the access, or null when a bounded store forgot it;
// `nodes.Mark(id)` is its traversal stamp (the id of the last f that visited it, + 1).
template <typename NodeStore, typename ReportFn>
void ReportReachable(const AccessNode& f, uint64_t f_id, const VectorClock& v, const std::vector<NodeRef>& partners,
                     const LocksetTable& locksets, NodeStore& nodes, ReportFn&& report, std::vector<uint64_t>* stack) {
  stack->clear();
  const uint64_t stamp = f_id + 1;
  auto visit = [&](uint64_t id) {
    uint64_t& mark = nodes.Mark(id);
    if (mark == stamp) return;
    mark = stamp;
    stack->push_back(id);
  };
  for (const NodeRef& r : partners)
    if (!r.Before(v) && nodes.Get(r.id) != nullptr) visit(r.id);
  while (!stack->empty()) {
    const uint64_t g_id = stack->back();
    stack->pop_back();
    const AccessNode* g = nodes.Get(g_id);
    if ((g->bytes & f.bytes) != 0 && (g->write || f.write) && !(g->atomic && f.atomic) &&
        locksets.Disjoint(g->lockset, f.lockset))
      report(g_id);
    for (uint32_t i = 0; i < g->preds.size(); ++i) {
      const uint64_t id = g->preds[i];
      const AccessNode* n = nodes.Get(id);
      if (n != nullptr && !n->Before(v)) visit(id);
    }
  }
}

}  // namespace seer::predictor::w3
