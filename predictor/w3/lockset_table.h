// Interned locksets for Lockset-W3: each distinct set of held locks gets a small
// id once, so accesses store 4 bytes and the common checks (empty set, same set)
// cost one comparison. Read-mode (shared) holdings protect only against writers.
#pragma once

#include <cstdint>
#include <map>
#include <utility>
#include <vector>

namespace seer::w3 {

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
  std::vector<std::vector<Lock>> sets_;
  std::map<std::vector<Lock>, uint32_t> ids_;
};

}  // namespace seer::w3
