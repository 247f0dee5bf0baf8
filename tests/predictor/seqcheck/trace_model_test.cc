#include "predictor/seqcheck/trace_model.h"

#include <gtest/gtest.h>

#include <vector>

#include "tests/support/trace_builder.h"

namespace seer::predictor::seqcheck {
namespace {

std::vector<uint32_t> Positions(std::span<const uint32_t> s) { return {s.begin(), s.end()}; }

// The writes of each variable by each thread, at the writer's positions in its
// own thread, ascending, whatever the order the threads interleave in.
TEST(TraceModelTest, WritesPerVariableAndThread) {
  test::TraceBuilder b;
  b.Write("t2", "x", 1);  // t2 position 0
  b.Write("t1", "x", 2);  // t1 position 0
  b.Read("t1", "y", 3);   // t1 position 1
  b.Write("t2", "y", 4);  // t2 position 1
  b.Write("t1", "x", 5);  // t1 position 2
  b.Write("t2", "x", 6);  // t2 position 2
  b.Write("t1", "y", 7);  // t1 position 3
  TraceModel m(b.events());
  ASSERT_EQ(m.variables(), 2u);
  const uint32_t t2 = m.node(0).tid, t1 = m.node(1).tid;
  const uint32_t x = m.accesses(0)[0].var, y = m.accesses(2)[0].var;
  EXPECT_EQ(Positions(m.writes(x, t1)), (std::vector<uint32_t>{0, 2}));
  EXPECT_EQ(Positions(m.writes(x, t2)), (std::vector<uint32_t>{0, 2}));
  EXPECT_EQ(Positions(m.writes(y, t1)), (std::vector<uint32_t>{3}));
  EXPECT_EQ(Positions(m.writes(y, t2)), (std::vector<uint32_t>{1}));
  EXPECT_TRUE(m.writes(m.variables(), t1).empty());  // no such variable
  EXPECT_TRUE(m.writes(x, 7).empty());               // no such thread
}

}  // namespace
}  // namespace seer::predictor::seqcheck
