// A set of 64-bit keys with open addressing, for counting distinct objects on the
// writer's hot path (std::unordered_set allocates a node per key).
#pragma once

#include <cstdint>
#include <vector>

namespace seer::store {

class FlatSet64 {
 public:
  // kAddresses: the keys are memory addresses, which come in runs (the fields
  // of a struct, the elements of an array). Their slots keep the run's
  // locality: the 8 aligned words of a 64-byte line land in one line of slots,
  // so a run of lookups misses the cache once, not once per key.
  enum class Keys { kAny, kAddresses };

  explicit FlatSet64(Keys keys = Keys::kAny) : slots_(16, kEmpty), addresses_(keys == Keys::kAddresses) {}

  // Returns true if `key` was not in the set.
  bool Insert(uint64_t key) {
    if (key == kEmpty) {
      bool fresh = !has_empty_key_;
      has_empty_key_ = true;
      return fresh;
    }
    if ((used_ + 1) * 2 > slots_.size()) Grow();
    return InsertSlot(key);
  }

  uint64_t size() const { return used_ + (has_empty_key_ ? 1 : 0); }

 private:
  static constexpr uint64_t kEmpty = ~0ull;

  static uint64_t Mix(uint64_t x) {  // splitmix64 finaliser
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9ull;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebull;
    return x ^ (x >> 31);
  }
  uint64_t Hash(uint64_t x) const {
    // The line is mixed, the word within it kept (xor-folded so that byte
    // addresses of one word do not all start at one slot).
    return addresses_ ? ((Mix(x >> 6) << 3) ^ ((x ^ (x >> 3)) & 7)) : Mix(x);
  }

  bool InsertSlot(uint64_t key) {
    const uint64_t mask = slots_.size() - 1;
    for (uint64_t i = Hash(key) & mask;; i = (i + 1) & mask) {
      if (slots_[i] == key) return false;
      if (slots_[i] == kEmpty) {
        slots_[i] = key;
        ++used_;
        return true;
      }
    }
  }

  void Grow() {
    std::vector<uint64_t> old(slots_.size() * 2, kEmpty);
    old.swap(slots_);
    used_ = 0;
    for (uint64_t k : old)
      if (k != kEmpty) InsertSlot(k);
  }

  std::vector<uint64_t> slots_;
  uint64_t used_ = 0;
  bool has_empty_key_ = false;
  bool addresses_;
};

}  // namespace seer::store
