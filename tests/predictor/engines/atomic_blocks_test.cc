// The `atomic-blocks` engine: conflict serializability of marked blocks in the
// recorded run (Velodrome's transaction graph).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/support/engine_runner.h"
#include "tests/support/random_trace.h"
#include "tests/support/trace_builder.h"

namespace seer::predictor {
namespace {

std::vector<AtomicityViolation> Check(const std::vector<std::string>& lines) {
  return test::RunEngine("atomic-blocks", test::TraceBuilder().Std(lines).events()).atomicity;
}

TEST(AtomicBlocks, SerialBlocksAreFine) {
  EXPECT_TRUE(Check({"T1|begin|1", "T1|r(x)|2", "T1|w(x)|3", "T1|end|4", "T2|begin|5", "T2|w(x)|6", "T2|end|7",
                     "T1|begin|1", "T1|r(x)|2", "T1|w(x)|3", "T1|end|4"})
                  .empty());
}

TEST(AtomicBlocks, LostUpdateInsideABlock) {
  // T1's block reads x, T2 writes x, T1 writes x: no serial order explains it.
  auto found = Check({"T1|begin|1", "T1|r(x)|2", "T2|w(x)|3", "T1|w(x)|4", "T1|end|5"});
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].engine, "atomic-blocks");
  EXPECT_EQ(found[0].pattern, "not-conflict-serializable");
  EXPECT_EQ(found[0].local_first.pc, 2u);
  EXPECT_EQ(found[0].remote.pc, 3u);
  EXPECT_EQ(found[0].local_second.pc, 4u);
  EXPECT_FALSE(found[0].witness.validated);  // judged on the recorded run: no schedule
}

TEST(AtomicBlocks, InterleavedButCommutingIsFine) {
  // T2 touches only y while T1's block runs: serializable (T2 first or last).
  EXPECT_TRUE(Check({"T1|begin|1", "T1|r(x)|2", "T2|w(y)|3", "T2|r(y)|4", "T1|w(x)|5", "T1|end|6"}).empty());
  // Reads only conflict with writes.
  EXPECT_TRUE(Check({"T1|begin|1", "T1|r(x)|2", "T2|r(x)|3", "T1|r(x)|4", "T1|end|5"}).empty());
}

TEST(AtomicBlocks, CycleThroughLocksAndAThirdThread) {
  // T1's block releases l, T2 takes it and writes y, T3 reads y and writes x,
  // T1's block reads x: T1 -> T2 -> T3 -> T1.
  auto found = Check({"T1|begin|1", "T1|acq(l)|2", "T1|rel(l)|3", "T2|acq(l)|4", "T2|w(y)|5", "T2|rel(l)|6",
                      "T3|r(y)|7", "T3|w(x)|8", "T1|r(x)|9", "T1|end|10"});
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].local_first.pc, 3u);
  EXPECT_EQ(found[0].remote.pc, 8u);
  EXPECT_EQ(found[0].local_second.pc, 9u);
}

TEST(AtomicBlocks, NestedMarksCountOnceAndEventsAfterEndAreOutside) {
  auto found = Check({"T1|begin|1", "T1|begin|2", "T1|r(x)|3", "T1|end|4", "T2|w(x)|5", "T1|w(x)|6", "T1|end|7"});
  EXPECT_EQ(found.size(), 1u);  // the outer block spans both accesses
  EXPECT_TRUE(Check({"T1|begin|1", "T1|r(x)|3", "T1|end|4", "T2|w(x)|5", "T1|w(x)|6"}).empty());
}

TEST(AtomicBlocks, OneReportPerProgramPoints) {
  std::vector<std::string> lines;
  for (int i = 0; i < 50; ++i)
    for (const char* l : {"T1|begin|1", "T1|r(x)|2", "T2|w(x)|3", "T1|w(x)|4", "T1|end|5"}) lines.push_back(l);
  EXPECT_EQ(Check(lines).size(), 1u);
}

// Random traces whose blocks are never interleaved with another thread's events
// are serial, hence serializable: no report, whatever the conflicts.
TEST(AtomicBlocks, ContiguousBlocksOfRandomTracesAreNeverReported) {
  uint64_t blocks = 0;
  for (uint64_t seed = 0; seed < 500; ++seed) {
    test::RandomTraceOptions o;
    o.threads = 3;
    o.events = 40;
    o.rwlocks = seed % 2;
    o.signals = seed % 3 == 0;
    std::vector<Event> raw = test::RandomTrace(o, seed), trace;
    // Wrap every maximal run of one thread's events in begin/end.
    for (size_t i = 0; i < raw.size();) {
      size_t j = i;
      while (j < raw.size() && raw[j].tid == raw[i].tid) ++j;
      Event b = raw[i];
      b.kind = EventKind::kAtomicBegin;
      b.object = 0;
      trace.push_back(b);
      for (size_t k = i; k < j; ++k) trace.push_back(raw[k]);
      Event e = raw[j - 1];
      e.kind = EventKind::kAtomicEnd;
      e.object = 0;
      trace.push_back(e);
      ++blocks;
      i = j;
    }
    for (size_t k = 0; k < trace.size(); ++k) trace[k].index = k;
    EXPECT_TRUE(test::RunEngine("atomic-blocks", trace).atomicity.empty()) << "seed " << seed;
  }
  EXPECT_GT(blocks, 5000u);
}

TEST(AtomicBlocks, RegisteredOutsideTheDefaultSet) {
  const EngineSpec* spec = FindEngine("atomic-blocks");
  ASSERT_NE(spec, nullptr);
  EXPECT_FALSE(spec->in_default_set);
}

}  // namespace
}  // namespace seer::predictor
