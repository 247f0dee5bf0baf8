// CP by its definition, for checking the cp engine on small traces: the
// relation is HB;E;HB for the least set E of edges closed under the rules
// (Smaragdakis et al., POPL 2012), found by iterating to a fixpoint over all
// pairs of critical sections, with boolean HB reachability between every two
// operations. Cubic and more: tiny traces only. Events are lowered with
// predictor/common/sync_ops.h, as the engines do, and the same choices hold:
//   - hard orders (fork, join, signal/wait) are edges of E from the start;
//   - rule (a): sections of one lock in different threads, at least one in
//     write mode, with conflicting accesses (atomic or not) on a byte no
//     allocation made fresh in between;
//   - rule (b): write-mode sections of one lock in different threads, the
//     second released.
#pragma once

#include <algorithm>
#include <cstdint>
#include <map>
#include <set>
#include <utility>
#include <vector>

#include "predictor/common/sync_ops.h"
#include "seer/event.h"

namespace seer::test {

struct CpReference {
  std::set<std::pair<uint64_t, uint64_t>> race_pairs;  // (earlier index, later index) of every CP-unordered conflict
  std::set<uint64_t> racy_events;                      // later accesses of those pairs
};

inline CpReference ComputeCpReference(const std::vector<Event>& events) {
  struct Op {
    uint64_t event;
    uint32_t tid;
    predictor::LoweredOp op;
  };
  std::vector<Op> ops;
  predictor::EventLowering lowering;
  for (const Event& e : events)
    lowering.Lower(e, [&](const predictor::LoweredOp& op) {
      if (op.op == predictor::SyncOp::kRead || op.op == predictor::SyncOp::kWrite) {
        ForEachAccess(e, op, [&](const predictor::LoweredOp& a) { ops.push_back({e.index, e.tid, a}); });
      } else {
        ops.push_back({e.index, e.tid, op});
      }
    });
  const size_t n = ops.size();
  // hb[i][j]: op i happens before or is op j.
  std::vector<std::vector<bool>> hb(n, std::vector<bool>(n, false));
  std::vector<std::pair<size_t, size_t>> hard;  // (source, target) of hard edges
  std::map<uint32_t, size_t> last_of_thread;
  for (size_t j = 0; j < n; ++j) {
    hb[j][j] = true;
    const Op& o = ops[j];
    if (auto it = last_of_thread.find(o.tid); it != last_of_thread.end()) hb[it->second][j] = true;
    last_of_thread[o.tid] = j;
    for (size_t i = 0; i < j; ++i) {
      const Op& p = ops[i];
      // A read-mode release orders only later write-mode acquires.
      if (o.op.op == predictor::SyncOp::kAcquire && p.op.op == predictor::SyncOp::kRelease &&
          p.op.object == o.op.object && (!p.op.shared || !o.op.shared))
        hb[i][j] = true;
      bool hard_edge = false;
      if (p.op.op == predictor::SyncOp::kFork && p.op.object == o.tid) hard_edge = true;
      if (o.op.op == predictor::SyncOp::kJoin && o.op.object == p.tid) hard_edge = true;
      if (p.op.op == predictor::SyncOp::kSignal && o.op.op == predictor::SyncOp::kWait && p.op.object == o.op.object) {
        hard_edge = true;
        for (size_t k = i + 1; k < j; ++k)
          if (ops[k].op.op == predictor::SyncOp::kEndSignals && ops[k].op.object == o.op.object) hard_edge = false;
      }
      if (hard_edge) {
        hb[i][j] = true;
        hard.push_back({i, j});
      }
    }
  }
  for (size_t k = 0; k < n; ++k)
    for (size_t i = 0; i < n; ++i)
      if (hb[i][k])
        for (size_t j = 0; j < n; ++j)
          if (hb[k][j]) hb[i][j] = true;

  // Critical sections: the outermost acquire and release of each lock per thread.
  struct Section {
    uint64_t lock;
    uint32_t tid;
    bool shared;
    size_t acq, rel;  // rel == n: never released
  };
  std::vector<Section> sections;
  std::map<std::pair<uint32_t, uint64_t>, std::pair<size_t, int>> open;  // (tid, lock) -> (section, depth)
  for (size_t j = 0; j < n; ++j) {
    const Op& o = ops[j];
    if (o.op.op == predictor::SyncOp::kAcquire) {
      auto [it, fresh] = open.try_emplace({o.tid, o.op.object}, sections.size(), 0);
      if (fresh) sections.push_back({o.op.object, o.tid, o.op.shared, j, n});
      ++it->second.second;
    } else if (o.op.op == predictor::SyncOp::kRelease) {
      auto it = open.find({o.tid, o.op.object});
      if (it == open.end()) continue;
      if (--it->second.second == 0) {
        sections[it->second.first].rel = j;
        open.erase(it);
      }
    }
  }
  auto inside = [&](const Section& s, size_t j) { return ops[j].tid == s.tid && j >= s.acq && j <= s.rel; };
  auto is_access = [&](size_t j) {
    const predictor::SyncOp k = ops[j].op.op;
    return k == predictor::SyncOp::kRead || k == predictor::SyncOp::kWrite || k == predictor::SyncOp::kFree;
  };
  auto writes = [&](size_t j) { return ops[j].op.op != predictor::SyncOp::kRead; };
  auto range = [&](size_t j) {
    return std::make_pair(ops[j].op.object, ops[j].op.object + std::max<uint64_t>(1, ops[j].op.size));
  };
  // Conflicting on some byte that no allocation between them made fresh.
  auto conflict = [&](size_t i, size_t j) {
    if (i > j) std::swap(i, j);
    if (!is_access(i) || !is_access(j) || ops[i].tid == ops[j].tid || (!writes(i) && !writes(j))) return false;
    const auto [a0, a1] = range(i);
    const auto [b0, b1] = range(j);
    for (uint64_t byte = std::max(a0, b0); byte < std::min(a1, b1); ++byte) {
      bool fresh = false;
      for (size_t k = i + 1; k < j && !fresh; ++k)
        fresh = ops[k].op.op == predictor::SyncOp::kFresh && ops[k].op.object <= byte &&
                byte < ops[k].op.object + ops[k].op.size;
      if (!fresh) return true;
    }
    return false;
  };

  std::vector<std::pair<size_t, size_t>> edges = hard;
  auto ordered = [&](size_t i, size_t j) {
    for (const auto& [s, t] : edges)
      if (hb[i][s] && hb[t][j]) return true;
    return false;
  };
  std::set<std::pair<size_t, size_t>> have(edges.begin(), edges.end());
  for (bool changed = true; changed;) {
    changed = false;
    for (const Section& a : sections) {
      if (a.rel == n) continue;
      for (const Section& b : sections) {
        if (a.lock != b.lock || a.tid == b.tid || b.acq < a.rel || (a.shared && b.shared)) continue;
        if (have.count({a.rel, b.acq})) continue;
        bool edge = false;
        for (size_t i = a.acq; i <= a.rel && !edge; ++i)
          for (size_t j = b.acq; j <= std::min(b.rel, n - 1) && !edge; ++j)
            edge = inside(a, i) && inside(b, j) && conflict(i, j);
        if (!edge && !a.shared && !b.shared && b.rel != n) edge = ordered(a.acq, b.rel);
        if (!edge) continue;
        edges.push_back({a.rel, b.acq});
        have.insert({a.rel, b.acq});
        changed = true;
      }
    }
  }

  CpReference out;
  for (size_t j = 0; j < n; ++j)
    for (size_t i = 0; i < j; ++i) {
      if (!conflict(i, j) || (ops[i].op.atomic && ops[j].op.atomic) || ordered(i, j)) continue;
      out.race_pairs.insert({ops[i].event, ops[j].event});
      out.racy_events.insert(ops[j].event);
    }
  return out;
}

}  // namespace seer::test
