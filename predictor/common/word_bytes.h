// The 8-byte words an access touches and which bytes of each: engines that keep
// state per word decide conflicts on overlapping bytes with these masks
// (docs/analyses.md, "Shared choices"). Bit i of a mask is byte i of the word.
#pragma once

#include <cstdint>

namespace seer::predictor {

inline constexpr unsigned kWordShift = 3;  // 8-byte words

// The bytes of word `w` inside the byte range [address, last] (which touches w).
inline uint8_t WordByteMask(uint64_t w, uint64_t address, uint64_t last) {
  const unsigned lo = (w == address >> kWordShift) ? static_cast<unsigned>(address & 7) : 0;
  const unsigned hi = (w == last >> kWordShift) ? static_cast<unsigned>(last & 7) + 1 : 8;
  return static_cast<uint8_t>(((1u << (hi - lo)) - 1) << lo);
}

}  // namespace seer::predictor
