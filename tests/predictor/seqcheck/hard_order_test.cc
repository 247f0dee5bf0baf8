// Hard orders: the streamed clocks (deadlock filter) and the bounded scans
// (atomicity filter) agree with a plain transitive closure of program order and
// the hard edges on random traces with forks, joins and signals.
#include "predictor/seqcheck/hard_order.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <vector>

#include "tests/support/random_trace.h"
#include "tests/support/trace_builder.h"

namespace seer::predictor::seqcheck {
namespace {

// reach[b][a]: a != b and a reaches b by program order and hard edges.
std::vector<std::vector<bool>> Closure(const TraceModel& m) {
  const uint32_t n = static_cast<uint32_t>(m.size());
  std::vector<std::vector<bool>> reach(n, std::vector<bool>(n, false));
  for (uint32_t b = 0; b < n; ++b) {
    std::vector<uint32_t> direct;
    const Node& nb = m.node(b);
    if (nb.pos > 0) direct.push_back(m.At(nb.tid, nb.pos - 1));
    ForEachHardSource(m, b, [&](uint32_t s) { direct.push_back(s); });
    for (uint32_t a : direct) {
      EXPECT_LT(a, b) << "a hard edge goes backwards in the trace";
      reach[b][a] = true;
      for (uint32_t x = 0; x < n; ++x)
        if (reach[a][x]) reach[b][x] = true;
    }
  }
  return reach;
}

test::RandomTraceOptions Options(uint64_t seed) {
  test::RandomTraceOptions o;
  o.threads = 2 + seed % 3;
  o.events = 12 + seed % 40;
  o.locks = 1 + seed % 2;
  o.variables = 1 + seed % 2;
  o.signals = seed % 4 != 0;
  o.fork_join = seed % 3 != 0;
  return o;
}

TEST(HardOrder, ClocksAndScansMatchTheClosure) {
  uint64_t cross = 0;  // pairs of nodes of distinct threads ordered by hard edges
  for (uint64_t seed = 0; seed < 600; ++seed) {
    std::vector<Event> trace = test::RandomTrace(Options(seed), seed);
    TraceModel m(trace);
    const uint32_t n = static_cast<uint32_t>(m.size());
    const auto reach = Closure(m);

    HardClocks clocks(m);
    for (uint32_t b = 0; b < n; ++b) {
      const VectorClock& c = clocks.Before(b);
      for (uint32_t t = 0; t < m.threads(); ++t) {
        if (t == m.node(b).tid) continue;  // left out: it is the node's position
        uint32_t expected = 0;
        for (uint32_t p = 0; p < m.thread_length(t); ++p)
          if (reach[b][m.At(t, p)]) expected = p + 1;
        ASSERT_EQ(c.Get(t), expected) << "seed " << seed << " node " << b << " thread " << t;
      }
    }

    HardReach scan(m);
    for (uint32_t a = 0; a < n; ++a)
      for (uint32_t b = a; b < n; b += 1 + b % 3) {
        scan.ScanFrom(a, b);
        for (uint32_t x = a; x <= b; ++x) {
          ASSERT_EQ(scan.From(x), x == a || reach[x][a]) << "seed " << seed << " from " << a << " to " << x;
          if (x != a && reach[x][a] && m.node(x).tid != m.node(a).tid) ++cross;
        }
        scan.ScanTo(b, a);
        for (uint32_t x = a; x <= b; ++x)
          ASSERT_EQ(scan.To(x), x == b || reach[b][x]) << "seed " << seed << " from " << x << " to " << b;
      }
  }
  EXPECT_GT(cross, 1000u);  // the hard edges were exercised, not only program order
  std::printf("hard order: %llu cross-thread ordered pairs checked\n", static_cast<unsigned long long>(cross));
}

TEST(HardOrder, LockOrderIsNotHard) {
  // T2 took the lock after T1 released it: lock order, which a reordering may flip.
  std::vector<Event> trace =
      test::TraceBuilder()
          .Std({"T1|acq(l)|1", "T1|w(x)|2", "T1|rel(l)|3", "T2|acq(l)|4", "T2|w(x)|5", "T2|rel(l)|6"})
          .events();
  TraceModel m(trace);
  HardReach scan(m);
  scan.ScanFrom(0, 5);
  EXPECT_TRUE(scan.From(2));
  EXPECT_FALSE(scan.From(3));
  EXPECT_FALSE(scan.From(5));
  scan.ScanTo(5, 0);
  EXPECT_TRUE(scan.To(3));
  EXPECT_FALSE(scan.To(2));
}

}  // namespace
}  // namespace seer::predictor::seqcheck
