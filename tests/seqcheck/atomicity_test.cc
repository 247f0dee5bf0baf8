// Atomicity-violation prediction: the classic lost update and check-then-act,
// and their correct versions (the whole update in one critical section).
#include "predictor/seqcheck/atomicity.h"

#include <gtest/gtest.h>

#include "predictor/engine.h"
#include "predictor/seqcheck/witness_checker.h"
#include "tests/support/trace_builder.h"

namespace seer::seqcheck {
namespace {

std::vector<AtomicityViolation> Predict(const std::vector<std::string>& lines) {
  std::vector<Event> trace = test::TraceBuilder().Std(lines).events();
  TraceModel m(trace);
  SeqCheckStats stats;
  auto found = PredictAtomicityViolations(m, AtomicityOptions{}, &stats);
  EXPECT_EQ(stats.invalid_witnesses, 0u);
  WitnessChecker checker(trace);
  for (const AtomicityViolation& v : found) {
    EXPECT_TRUE(v.witness.validated);
    Status s = checker.CheckAtomicity(v);
    EXPECT_TRUE(s.ok()) << s.ToString();
  }
  return found;
}

TEST(Atomicity, LostUpdateAcrossTwoCriticalSections) {
  // T1 reads the counter under one hold of l and writes it under the next; T2's
  // reset can run in between (it ran after T1 here).
  auto found = Predict({"T1|acq(l)|1", "T1|r(count)|2", "T1|rel(l)|3", "T1|acq(l)|4", "T1|w(count)|5",
                        "T1|rel(l)|6", "T2|acq(l)|7", "T2|w(count)|8", "T2|rel(l)|9"});
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].pattern, "read-write-write");
  EXPECT_EQ(found[0].local_first.pc, 2u);
  EXPECT_EQ(found[0].remote.pc, 8u);
  EXPECT_EQ(found[0].local_second.pc, 5u);
}

TEST(Atomicity, LostUpdateFixedInOneCriticalSection) {
  EXPECT_TRUE(Predict({"T1|acq(l)|1", "T1|r(count)|2", "T1|w(count)|5", "T1|rel(l)|6",
                       "T2|acq(l)|7", "T2|w(count)|8", "T2|rel(l)|9"})
                  .empty());
}

TEST(Atomicity, CheckThenActOnSharedPointer) {
  // if (p) use(p): the check and the use take the lock separately; T2 clears p.
  auto found = Predict({"T1|acq(l)|1", "T1|r(p)|2", "T1|rel(l)|3", "T1|acq(l)|4", "T1|r(p)|5", "T1|rel(l)|6",
                        "T2|acq(l)|7", "T2|w(p)|8", "T2|rel(l)|9"});
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].pattern, "read-write-read");
}

TEST(Atomicity, CheckThenActFixedInOneCriticalSection) {
  EXPECT_TRUE(Predict({"T1|acq(l)|1", "T1|r(p)|2", "T1|r(p)|5", "T1|rel(l)|6",
                       "T2|acq(l)|7", "T2|w(p)|8", "T2|rel(l)|9"})
                  .empty());
}

TEST(Atomicity, IntruderThatMustComeFirstIsNotReported) {
  // T1 reads what T2 wrote: T2's write cannot move between T1's accesses.
  EXPECT_TRUE(Predict({"T2|w(x)|1", "T1|r(x)|2", "T1|w(x)|3"}).empty());
}

TEST(Atomicity, WindowBoundsTheDistance) {
  std::vector<std::string> lines = {"T1|r(x)|1"};
  for (int i = 0; i < 20; ++i) lines.push_back("T1|w(y)|" + std::to_string(100 + i));
  lines.push_back("T1|w(x)|2");
  lines.push_back("T2|w(x)|3");
  std::vector<Event> trace = test::TraceBuilder().Std(lines).events();
  TraceModel m(trace);
  SeqCheckStats stats;
  AtomicityOptions narrow;
  narrow.window = 10;
  narrow.intruder_distance = 100;
  EXPECT_TRUE(PredictAtomicityViolations(m, narrow, &stats).empty());
  AtomicityOptions wide;
  wide.window = 30;
  wide.intruder_distance = 100;
  EXPECT_EQ(PredictAtomicityViolations(m, wide, &stats).size(), 1u);
}

TEST(Atomicity, EngineIsRegistered) {
  const EngineSpec* spec = FindEngine("atomicity");
  ASSERT_NE(spec, nullptr);
  EXPECT_TRUE(spec->in_default_set);
}

}  // namespace
}  // namespace seer::seqcheck
