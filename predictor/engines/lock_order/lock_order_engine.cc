#include "predictor/engines/lock_order/lock_order_engine.h"

#include <algorithm>
#include <map>
#include <set>
#include <utility>
#include <vector>

#include "predictor/common/thread_ids.h"

namespace seer::predictor {
namespace {

// A lock a thread holds, with where it took it.
struct Held {
  uint64_t lock = 0;
  uint32_t depth = 0;
  EventRef acquire;
};

// An edge held -> wanted: the first time it was taken, and the locks held at
// every time it was taken (the gate-lock candidates; `held` itself among them).
struct Edge {
  DeadlockThread first;
  std::vector<uint64_t> always_held;  // sorted
};

// Most cycles kept per trace: a lock graph with thousands of cycles says one
// thing (no lock order at all), and listing them helps no one.
constexpr size_t kMaxCycles = 100;

class LockOrderEngine : public Engine {
 public:
  explicit LockOrderEngine(uint32_t max_cycle) : max_cycle_(std::max<uint32_t>(max_cycle, 2)) {}

  void Process(const Event* events, size_t n) override {
    for (size_t i = 0; i < n; ++i) {
      const Event& e = events[i];
      if (!thread_ids_.Accept(e)) continue;
      switch (e.kind) {
        // A trylock or timed lock never waits forever: it orders nothing, but
        // the lock it got is held for later acquisitions.
        case EventKind::kAcquire: Acquire(e, e.object, e.aux == static_cast<uint64_t>(AcquireHow::kBlocking)); break;
        case EventKind::kRelease: Release(e.tid, e.object); break;
        case EventKind::kCondWaitBegin: Release(e.tid, e.aux); break;
        case EventKind::kCondWaitEnd: Acquire(e, e.aux, /*blocking=*/true); break;  // the mutex taken again
        default: break;
      }
    }
  }

  Status Finish(Findings* findings) override {
    if (!thread_ids_.status().ok()) return thread_ids_.status();
    // Successors of each lock, in lock order (the map's), for a deterministic search.
    std::map<uint64_t, std::vector<uint64_t>> next;
    for (const auto& [key, edge] : edges_) next[key.first].push_back(key.second);
    // Simple cycles, each found once from its smallest lock.
    std::vector<uint64_t> path;
    std::set<uint64_t> on_path;
    for (const auto& [start, unused] : next) {
      if (cycles_.size() >= kMaxCycles) break;
      path = {start};
      on_path = {start};
      Search(next, start, &path, &on_path);
    }
    for (const std::vector<uint64_t>& cycle : cycles_) {
      LockOrderInversion inv;
      inv.engine = "lock-order";
      for (size_t k = 0; k < cycle.size(); ++k)
        inv.cycle.push_back(edges_.at({cycle[k], cycle[(k + 1) % cycle.size()]}).first);
      findings->lock_order.push_back(std::move(inv));
    }
    return Status::Ok();
  }

 private:
  void Acquire(const Event& e, uint64_t lock, bool blocking) {
    std::vector<Held>& held = Of(e.tid);
    for (Held& h : held)
      if (h.lock == lock) {  // recursive: no new order
        ++h.depth;
        return;
      }
    const EventRef request = EventRef::Of(e);
    if (blocking && !held.empty()) {
      // Every held lock, sorted: for the edge from one of them, the others are
      // its gate-lock candidates (the lock itself is in any cycle of the edge,
      // which Gated leaves out, so it may stay in the set).
      std::vector<uint64_t> held_now;
      for (const Held& h : held) held_now.push_back(h.lock);
      std::sort(held_now.begin(), held_now.end());
      for (const Held& h : held) {
        auto [it, fresh] = edges_.try_emplace({h.lock, lock});
        Edge& edge = it->second;
        if (fresh) {
          edge.first = {e.tid, h.lock, h.acquire, lock, request};
          edge.always_held = held_now;
        } else {
          std::vector<uint64_t> both;
          std::set_intersection(edge.always_held.begin(), edge.always_held.end(), held_now.begin(), held_now.end(),
                                std::back_inserter(both));
          edge.always_held = std::move(both);
        }
      }
    }
    held.push_back({lock, 1, request});
  }

  void Release(uint32_t tid, uint64_t lock) {
    std::vector<Held>& held = Of(tid);
    for (size_t i = held.size(); i-- > 0;) {
      if (held[i].lock != lock) continue;
      if (--held[i].depth == 0) held.erase(held.begin() + static_cast<long>(i));
      return;
    }
  }

  std::vector<Held>& Of(uint32_t tid) {
    if (tid >= held_.size()) held_.resize(tid + 1);
    return held_[tid];
  }

  // Extends `path` (a simple path from its first lock, the cycle's smallest) by
  // each successor larger than the start; a successor equal to the start closes
  // a cycle.
  void Search(const std::map<uint64_t, std::vector<uint64_t>>& next, uint64_t start, std::vector<uint64_t>* path,
              std::set<uint64_t>* on_path) {
    auto it = next.find(path->back());
    if (it == next.end()) return;
    for (uint64_t to : it->second) {
      if (cycles_.size() >= kMaxCycles) return;
      if (to == start) {
        if (path->size() >= 2 && !Gated(*path)) cycles_.push_back(*path);
        continue;
      }
      if (to < start || on_path->count(to) || path->size() >= max_cycle_) continue;
      path->push_back(to);
      on_path->insert(to);
      Search(next, start, path, on_path);
      on_path->erase(to);
      path->pop_back();
    }
  }

  // A lock held at every acquisition of every edge of the cycle (and not one of
  // its own) lets only one thread at a time take any of them: no deadlock.
  bool Gated(const std::vector<uint64_t>& cycle) const {
    std::vector<uint64_t> common;
    for (size_t k = 0; k < cycle.size(); ++k) {
      const Edge& edge = edges_.at({cycle[k], cycle[(k + 1) % cycle.size()]});
      if (k == 0) {
        common = edge.always_held;
      } else {
        std::vector<uint64_t> both;
        std::set_intersection(common.begin(), common.end(), edge.always_held.begin(), edge.always_held.end(),
                              std::back_inserter(both));
        common = std::move(both);
      }
    }
    for (uint64_t lock : common)
      if (std::find(cycle.begin(), cycle.end(), lock) == cycle.end()) return true;
    return false;
  }

  const uint32_t max_cycle_;
  ThreadIdCheck thread_ids_;
  std::vector<std::vector<Held>> held_;
  std::map<std::pair<uint64_t, uint64_t>, Edge> edges_;
  std::vector<std::vector<uint64_t>> cycles_;
};

}  // namespace

std::unique_ptr<Engine> NewLockOrderEngine(const AnalysisOptions& options) {
  return std::make_unique<LockOrderEngine>(options.deadlock_max_cycle);
}

}  // namespace seer::predictor
