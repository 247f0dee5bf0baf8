#include "predictor/seqcheck/lock_order.h"

#include <cstdint>
#include <unordered_map>
#include <unordered_set>
#include <utility>

#include "predictor/common/sync_ops.h"

namespace seer::predictor::seqcheck {

namespace {

struct PairHash {
  size_t operator()(const std::pair<uint32_t, uint32_t>& p) const {
    return std::hash<uint64_t>()((uint64_t{p.first} << 32) | p.second);
  }
};

// A thread's open sections: (lock, depth), few at a time, so a vector.
using Held = std::vector<std::pair<uint32_t, uint32_t>>;

Held::iterator Find(Held* held, uint32_t lock) {
  for (auto it = held->begin(); it != held->end(); ++it)
    if (it->first == lock) return it;
  return held->end();
}

// Colours: 0 unseen, 1 on the depth-first path, 2 done. Iterative, so that
// a long chain of nested locks cannot overflow the stack.
bool HasCycle(const std::vector<std::vector<uint32_t>>& successors) {
  const size_t n = successors.size();
  std::vector<uint8_t> colour(n, 0);
  std::vector<std::pair<uint32_t, size_t>> stack;  // (lock, next successor to visit)
  for (uint32_t root = 0; root < n; ++root) {
    if (colour[root] != 0) continue;
    colour[root] = 1;
    stack.push_back({root, 0});
    while (!stack.empty()) {
      auto& [at, next] = stack.back();
      if (next == successors[at].size()) {
        colour[at] = 2;
        stack.pop_back();
        continue;
      }
      const uint32_t to = successors[at][next++];
      if (colour[to] == 1) return true;
      if (colour[to] == 0) {
        colour[to] = 1;
        stack.push_back({to, 0});
      }
    }
  }
  return false;
}

}  // namespace

bool LockOrderHasCycle(const std::vector<Event>& events) {
  std::unordered_map<uint64_t, uint32_t> lock_ids;
  std::unordered_map<uint32_t, Held> held;  // by thread
  std::unordered_set<std::pair<uint32_t, uint32_t>, PairHash> edges;
  std::vector<std::vector<uint32_t>> successors;
  EventLowering lowering;
  auto lock_of = [&](uint64_t object) {
    auto [it, fresh] = lock_ids.try_emplace(object, static_cast<uint32_t>(lock_ids.size()));
    if (fresh) successors.emplace_back();
    return it->second;
  };
  for (const Event& e : events) {
    // Only these kinds lower to lock operations (sync_ops.h); skipping the
    // rest before the lowering keeps the pass at a few ns an event.
    if (e.kind != EventKind::kAcquire && e.kind != EventKind::kRelease && e.kind != EventKind::kCondWaitBegin &&
        e.kind != EventKind::kCondWaitEnd)
      continue;
    lowering.Lower(e, [&](const LoweredOp& op) {
      if (op.op != SyncOp::kAcquire && op.op != SyncOp::kRelease) return;
      const uint32_t lock = lock_of(op.object);
      Held& h = held[e.tid];
      auto it = Find(&h, lock);
      if (op.op == SyncOp::kRelease) {
        // As TraceModel: a release of a lock its thread does not hold is nothing.
        if (it != h.end() && --it->second == 0) h.erase(it);
        return;
      }
      if (it != h.end()) {  // nested: only the outermost section counts
        ++it->second;
        return;
      }
      // Edges end at requests only, as LockGraph's: an acquisition that can
      // wait forever (not a trylock or timed lock, nor a condition wait's
      // return). Whatever a thread got, though, it holds.
      if (e.kind == EventKind::kAcquire && !IsNonBlockingAcquire(e))
        for (const auto& [from, depth] : h)
          if (edges.insert({from, lock}).second) successors[from].push_back(lock);
      h.push_back({lock, 1});
    });
  }
  return HasCycle(successors);
}

}  // namespace seer::predictor::seqcheck
