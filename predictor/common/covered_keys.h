// The keys of an ordered map or set that an alloc or free covers: the bytes
// [address, address + size), at least the first one (a free of unknown size, 0,
// names its block by its start), without overflow at the top of the address
// space. Used wherever an allocation event retires what is keyed by address.
#pragma once

#include <algorithm>
#include <cstdint>
#include <utility>

namespace seer::predictor {

template <typename Ordered>
auto CoveredKeys(Ordered& keys, uint64_t address, uint64_t size) {
  const uint64_t end = address + std::max<uint64_t>(size, 1);
  return std::make_pair(keys.lower_bound(address), end < address ? keys.end() : keys.lower_bound(end));
}

}  // namespace seer::predictor
