// Values grouped by a dense key (a variable, a thread), each group in the
// order its values were added: one array, each group a run of it found by its
// offset. Built by a counting sort in two passes over the values: Count each
// one's key, Place, then Add each in order. A vector per key was millions of
// small blocks on a window of many variables (a tenth of the atomicity
// engine's time in malloc, and with --jobs contention for the heap).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "predictor/seqcheck/huge_pages.h"

namespace seer::predictor::seqcheck {

template <typename T>
class Grouped {
 public:
  explicit Grouped(uint32_t keys) : begin_(size_t{keys} + 1, 0) {}

  void Count(uint32_t key, uint32_t values = 1) { begin_[key + 1] += values; }
  // After every Count, before the first Add.
  void Place() {
    for (size_t k = 1; k < begin_.size(); ++k) begin_[k] += begin_[k - 1];
    ReserveHuge(&values_, begin_.back());
    values_.resize(begin_.back());
    next_.assign(begin_.begin(), begin_.end() - 1);
  }
  // As many times per key as it was counted.
  void Add(uint32_t key, const T& value) { values_[next_[key]++] = value; }

  std::span<const T> Of(uint32_t key) const { return {values_.data() + begin_[key], values_.data() + begin_[key + 1]}; }
  // Every value, the groups in key order; group `key` starts at Begin(key).
  const std::vector<T>& values() const { return values_; }
  uint32_t Begin(uint32_t key) const { return begin_[key]; }

 private:
  std::vector<uint32_t> begin_;  // key -> its first value; keys + 1 entries
  std::vector<uint32_t> next_;   // key -> where its next value goes, while adding
  std::vector<T> values_;
};

}  // namespace seer::predictor::seqcheck
