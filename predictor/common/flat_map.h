// A small open-addressing hash map from 64-bit keys (addresses, lock ids) to
// values, for the engines' per-address and per-lock state: one probe sequence
// over a flat key array instead of std::unordered_map's node chasing. Entries
// are never erased (engines reset a value instead).
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

namespace seer::predictor {

template <typename Value>
class FlatMap64 {
 public:
  FlatMap64() { Rehash(16); }

  Value* Find(uint64_t key) {
    if (key == kEmpty) return has_empty_key_ ? &values_[empty_key_slot_] : nullptr;
    for (size_t i = Home(key);; i = (i + 1) & mask_) {
      if (slots_[i].key == key) return &values_[slots_[i].index];
      if (slots_[i].key == kEmpty) return nullptr;
    }
  }

  // The value for `key`, default-constructed on first use. References stay valid
  // until the next insertion. Engines look up the same few keys on every event:
  // a key found at its home slot is answered inline, the rest out of line.
  Value& operator[](uint64_t key) {
    const Slot& home = slots_[Home(key)];
    if (home.key == key && key != kEmpty) [[likely]]
      return values_[home.index];
    return FindOrInsert(key);
  }

  // Values also have stable dense indices (insertion order), for callers that
  // want to remember an entry across insertions.
  uint32_t IndexOf(uint64_t key) {
    Value* v = &(*this)[key];
    return static_cast<uint32_t>(v - values_.data());
  }
  Value& At(uint32_t index) { return values_[index]; }

  // Calls fn(key, value&) for every entry, in insertion order.
  template <typename Fn>
  void ForEach(Fn&& fn) {
    for (size_t i = 0; i < values_.size(); ++i) fn(owners_[i], values_[i]);
  }

  size_t size() const { return values_.size(); }

 private:
  static constexpr uint64_t kEmpty = ~0ull;

  [[gnu::noinline]] Value& FindOrInsert(uint64_t key) {
    if (key == kEmpty) {
      if (!has_empty_key_) {
        has_empty_key_ = true;
        empty_key_slot_ = static_cast<uint32_t>(values_.size());
        values_.emplace_back();
        owners_.push_back(key);
      }
      return values_[empty_key_slot_];
    }
    for (size_t i = Home(key);; i = (i + 1) & mask_) {
      if (slots_[i].key == key) return values_[slots_[i].index];
      if (slots_[i].key == kEmpty) {
        if ((used_ + 1) * 4 > slots_.size() * 3) {
          Rehash(slots_.size() * 2);
          return FindOrInsert(key);
        }
        slots_[i] = Slot{key, static_cast<uint32_t>(values_.size())};
        ++used_;
        values_.emplace_back();
        owners_.push_back(key);
        return values_.back();
      }
    }
  }

  size_t Home(uint64_t key) const { return static_cast<size_t>((key * 0x9E3779B97F4A7C15ull) >> shift_); }

  void Rehash(size_t capacity) {
    slots_.assign(capacity, Slot{kEmpty, 0});
    mask_ = capacity - 1;
    shift_ = 64;
    for (size_t c = capacity; c > 1; c >>= 1) --shift_;
    used_ = 0;
    for (size_t v = 0; v < owners_.size(); ++v) {
      const uint64_t key = owners_[v];
      if (key == kEmpty) continue;
      size_t i = Home(key);
      while (slots_[i].key != kEmpty) i = (i + 1) & mask_;
      slots_[i] = Slot{key, static_cast<uint32_t>(v)};
      ++used_;
    }
  }

  struct Slot {
    uint64_t key;
    uint32_t index;  // position of the key's value in values_
  };
  std::vector<Slot> slots_;
  std::vector<Value> values_;
  std::vector<uint64_t> owners_;  // key of each value, for rehashing and ForEach
  size_t mask_ = 0;
  int shift_ = 64;
  size_t used_ = 0;
  bool has_empty_key_ = false;
  uint32_t empty_key_slot_ = 0;
};

}  // namespace seer::predictor
