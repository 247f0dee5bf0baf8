#include "predictor/seqcheck/grouped.h"

#include <gtest/gtest.h>

#include <vector>

namespace seer::predictor::seqcheck {
namespace {

std::vector<int> Values(std::span<const int> s) { return {s.begin(), s.end()}; }

TEST(GroupedTest, EachGroupKeepsTheOrderOfItsValues) {
  // (key, value) in the order they come; keys 0 and 3 get none.
  const std::vector<std::pair<uint32_t, int>> in = {{2, 20}, {1, 10}, {2, 21}, {4, 40}, {1, 11}, {2, 22}};
  Grouped<int> g(5);
  for (auto [key, value] : in) g.Count(key);
  g.Place();
  for (auto [key, value] : in) g.Add(key, value);
  EXPECT_TRUE(g.Of(0).empty());
  EXPECT_EQ(Values(g.Of(1)), (std::vector<int>{10, 11}));
  EXPECT_EQ(Values(g.Of(2)), (std::vector<int>{20, 21, 22}));
  EXPECT_TRUE(g.Of(3).empty());
  EXPECT_EQ(Values(g.Of(4)), (std::vector<int>{40}));
  // One array, the groups in key order.
  EXPECT_EQ(g.values(), (std::vector<int>{10, 11, 20, 21, 22, 40}));
  EXPECT_EQ(g.Begin(2), 2u);
  EXPECT_EQ(g.Begin(4), 5u);
}

TEST(GroupedTest, ACountOfSeveralValues) {
  // Key 1 counted for its three values at once (a thread's length).
  Grouped<int> g(3);
  g.Count(1, 3);
  g.Count(2);
  g.Place();
  g.Add(2, 20);
  for (int v : {10, 11, 12}) g.Add(1, v);
  EXPECT_TRUE(g.Of(0).empty());
  EXPECT_EQ(Values(g.Of(1)), (std::vector<int>{10, 11, 12}));
  EXPECT_EQ(Values(g.Of(2)), (std::vector<int>{20}));
}

TEST(GroupedTest, NoValues) {
  Grouped<int> g(3);
  g.Place();
  EXPECT_TRUE(g.values().empty());
  for (uint32_t k = 0; k < 3; ++k) EXPECT_TRUE(g.Of(k).empty());
}

}  // namespace
}  // namespace seer::predictor::seqcheck
