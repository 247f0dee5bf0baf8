#include "tests/damaged/mutate.h"

#include <algorithm>
#include <cstring>

namespace seer::test {

namespace {
constexpr size_t kPage = 4096;
}

std::string Mutate(std::string* bytes, std::mt19937_64* rng) {
  auto below = [&](size_t n) { return n == 0 ? size_t{0} : static_cast<size_t>((*rng)() % n); };
  const size_t size = bytes->size();
  const size_t pages = size / kPage;
  const int roll = static_cast<int>(below(100));
  if (roll < 30) {
    // 1 to 64 bytes anywhere, each XORed with a non-zero value.
    const size_t n = 1 + below(64);
    for (size_t i = 0; i < n; ++i) (*bytes)[below(size)] ^= static_cast<char>(1 + below(255));
    return "flip";
  }
  if (roll < 55) {
    // 1 to 64 consecutive bytes: a torn or garbled sector.
    const size_t n = 1 + below(64);
    const size_t at = below(size);
    for (size_t i = at; i < std::min(size, at + n); ++i) (*bytes)[i] ^= static_cast<char>(1 + below(255));
    return "flip-run";
  }
  if (roll < 70 || pages < 2) {
    // Cut anywhere; half the time at a page boundary, as a copy stopped by a full disk.
    size_t keep = below(size);
    if (roll % 2 == 0) keep -= keep % kPage;
    bytes->resize(keep);
    return "truncate";
  }
  const size_t a = below(pages), b = below(pages);
  if (roll < 82) {
    if (a == b) return Mutate(bytes, rng);
    std::swap_ranges(bytes->begin() + a * kPage, bytes->begin() + (a + 1) * kPage, bytes->begin() + b * kPage);
    return "swap-pages";
  }
  if (roll < 91) {
    std::memset(bytes->data() + a * kPage, 0, kPage);
    return "zero-page";
  }
  if (a == b) return Mutate(bytes, rng);
  std::memcpy(bytes->data() + a * kPage, bytes->data() + b * kPage, kPage);
  return "copy-page";
}

}  // namespace seer::test
