// Interned locksets for Lockset-W3: each distinct set of held locks gets a small
// id once, so accesses store 4 bytes and the common checks (empty set, same set)
// cost one comparison. Read-mode (shared) holdings protect only against writers.
#pragma once

#include <algorithm>
#include <cstdint>
#include <map>
#include <unordered_map>
#include <utility>
#include <vector>

namespace seer::predictor::w3 {

class LocksetTable {
 public:
  using Lock = std::pair<uint64_t, bool>;  // (lock, held in shared mode)

  LocksetTable() { sets_.emplace_back(); }  // id 0: the empty set

  // The id of `locks` (sorted by lock id).
  uint32_t Intern(const std::vector<Lock>& locks) {
    if (locks.empty()) return 0;
    auto [it, fresh] = ids_.emplace(locks, static_cast<uint32_t>(sets_.size()));
    if (fresh) sets_.push_back(locks);
    return it->second;
  }

  // The id of set `id` plus (lock, shared) / minus `lock`; memoised per transition.
  uint32_t With(uint32_t id, uint64_t lock, bool shared) { return Transition(id, lock, shared ? 1 : 2); }
  uint32_t Without(uint32_t id, uint64_t lock) { return Transition(id, lock, 0); }

  // True when no lock is held by both sets, at least once exclusively.
  bool Disjoint(uint32_t a, uint32_t b) const {
    if (a == 0 || b == 0) return true;
    const auto &x = sets_[a], &y = sets_[b];
    for (const Lock& l : x)
      for (const Lock& m : y)
        if (l.first == m.first && !(l.second && m.second)) return false;
    return true;
  }

 private:
  // op: 0 remove, 1 add shared, 2 add exclusive.
  uint32_t Transition(uint32_t id, uint64_t lock, int op) {
    const TransitionKey key{id, lock, op};
    auto it = transitions_.find(key);
    if (it != transitions_.end()) return it->second;
    std::vector<Lock> locks = sets_[id];
    std::erase_if(locks, [&](const Lock& l) { return l.first == lock; });
    if (op != 0) locks.push_back({lock, op == 1});
    std::sort(locks.begin(), locks.end());
    const uint32_t result = Intern(locks);
    transitions_.emplace(key, result);
    return result;
  }

  std::vector<std::vector<Lock>> sets_;
  // Every acquire and release looks a transition up: hashed, not a tree walk.
  struct TransitionKey {
    uint32_t id;
    uint64_t lock;
    int op;
    bool operator==(const TransitionKey&) const = default;
  };
  struct TransitionHash {
    size_t operator()(const TransitionKey& k) const {
      return static_cast<size_t>((k.lock * 0x9E3779B97F4A7C15ull) ^
                                 (uint64_t{k.id} << 2 | static_cast<uint64_t>(k.op)));
    }
  };
  std::unordered_map<TransitionKey, uint32_t, TransitionHash> transitions_;
  std::map<std::vector<Lock>, uint32_t> ids_;
};

}  // namespace seer::predictor::w3
