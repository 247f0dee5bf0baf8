// FlatSet64 counts distinct keys exactly with either hash: random keys, runs of
// addresses (word and byte granularity), dense small integers, the reserved key.
#include "store/flat_set.h"

#include <gtest/gtest.h>

#include <random>
#include <set>

namespace seer::store {
namespace {

void ExpectSameAsStdSet(FlatSet64::Keys keys, const std::vector<uint64_t>& input) {
  FlatSet64 set(keys);
  std::set<uint64_t> expected;
  for (uint64_t k : input) {
    const bool fresh = expected.insert(k).second;
    ASSERT_EQ(set.Insert(k), fresh) << "key " << k;
  }
  EXPECT_EQ(set.size(), expected.size());
}

TEST(FlatSetTest, CountsExactlyWithEitherHash) {
  std::vector<uint64_t> random, words, bytes, dense;
  std::mt19937_64 rng(7);
  for (int i = 0; i < 20000; ++i) random.push_back(rng() % 5000);  // repeats
  for (uint64_t i = 0; i < 20000; ++i) words.push_back(0x7f0000001000 + 8 * (i % 9000));
  for (uint64_t i = 0; i < 5000; ++i) bytes.push_back(0x555500000000 + i);
  for (uint64_t i = 0; i < 5000; ++i) dense.push_back(i % 3000);
  random.push_back(~0ull);  // the key the table uses for empty slots
  random.push_back(~0ull);
  for (auto keys : {FlatSet64::Keys::kAny, FlatSet64::Keys::kAddresses})
    for (const auto* input : {&random, &words, &bytes, &dense}) ExpectSameAsStdSet(keys, *input);
}

}  // namespace
}  // namespace seer::store
