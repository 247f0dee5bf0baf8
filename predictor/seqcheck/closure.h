// The partial order SeqCheck builds over the reordered part of a candidate set
// (the "window": per thread, positions [lo, hi)), as a graph of program order plus
// explicit edges, with per-thread vector timestamps that answer the paper's
// G.reach, G.pred(e, t) and G.succ(e, t) queries, and the trace closure
// (Algorithm 3: observation and lock closure) computed to a fixpoint.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "predictor/seqcheck/trace_model.h"

namespace seer::predictor::seqcheck {

class WindowOrder {
 public:
  WindowOrder(const TraceModel& model, const std::vector<uint32_t>& lo, const std::vector<uint32_t>& hi);

  uint32_t size() const { return size_; }
  bool InWindow(uint32_t node) const {
    const Node& n = m_.node(node);
    return n.pos >= lo_[n.tid] && n.pos < hi_[n.tid];
  }
  uint32_t Local(uint32_t node) const {
    const Node& n = m_.node(node);
    return offset_[n.tid] + (n.pos - lo_[n.tid]);
  }
  uint32_t NodeOf(uint32_t local) const { return nodes_[local]; }
  uint32_t lo(uint32_t t) const { return lo_[t]; }
  uint32_t hi(uint32_t t) const { return hi_[t]; }
  // Threads with at least one event in the window.
  const std::vector<uint32_t>& active() const { return active_; }

  // An order a -> b between two window nodes (ignored when program order has it).
  void AddEdge(uint32_t a, uint32_t b);
  size_t edges() const { return edges_.size(); }

  // Recomputes the timestamps from all edges; false when they form a cycle.
  bool ComputeClocks();
  // a reaches b (a == b counts). Both in the window; valid after ComputeClocks.
  bool Reaches(uint32_t a, uint32_t b) const {
    const Node& na = m_.node(a);
    if (slot_[na.tid] == kNone) return false;
    return clock_[static_cast<size_t>(Local(b)) * width_ + slot_[na.tid]] > na.pos;
  }
  // The latest position of thread t that reaches b, plus one; 0 when none does.
  uint32_t PredEnd(uint32_t b, uint32_t t) const {
    if (slot_[t] == kNone) return 0;
    return clock_[static_cast<size_t>(Local(b)) * width_ + slot_[t]];
  }
  // The earliest window position of thread t that a reaches; hi(t) when none.
  uint32_t Succ(uint32_t a, uint32_t t) const;

  // Window nodes in a topological order of the last ComputeClocks, and the
  // successors (program order and edges) of each, for linearisation.
  const std::vector<uint32_t>& topo() const { return topo_; }
  template <typename Fn>
  void ForEachSuccessor(uint32_t local, Fn&& fn) const {
    if (local + 1 < size_ && nodes_[local + 1] != kNone && m_.node(nodes_[local + 1]).tid == m_.node(nodes_[local]).tid)
      fn(local + 1);
    for (uint32_t k = out_begin_[local]; k < out_begin_[local + 1]; ++k) fn(out_[k]);
  }
  uint32_t InDegree(uint32_t local) const { return indegree_[local]; }

 private:
  const TraceModel& m_;
  std::vector<uint32_t> lo_, hi_, offset_, slot_, active_;
  std::vector<uint32_t> nodes_;  // local -> node
  uint32_t size_ = 0;
  uint32_t width_ = 0;                                // active threads
  std::vector<std::pair<uint32_t, uint32_t>> edges_;  // local ids
  std::vector<uint32_t> out_begin_, out_, indegree_, topo_;
  std::vector<uint32_t> clock_;  // [local][slot]: latest position reaching it, plus one
};

// Closes `order` under the observation and lock rules of a trace-closed partial
// order (paper §3.3) until nothing changes. `needy(node)` says whether a window
// read must keep its observed write. False, with `why`, on a cycle.
bool CloseOrder(const TraceModel& model, WindowOrder* order, const std::function<bool(uint32_t)>& needy,
                uint32_t max_rounds, uint32_t* rounds, std::string* why);

}  // namespace seer::predictor::seqcheck
