// Other engines against the oracle, through the registry: every SHB race is
// predictable (SHB is sound), HB's and WCP's first race is a predictable race or,
// for WCP, a predictable deadlock instead (weak soundness). These engines live on
// another branch; until they are registered the tests skip, naming the engine.
#include <gtest/gtest.h>

#include "tests/oracle/oracle.h"
#include "tests/oracle/paper_traces.h"
#include "tests/oracle/tiny_traces.h"
#include "tests/support/engine_runner.h"

namespace seer::test {
namespace {

constexpr uint64_t kTraces = 2000;

bool Registered(const std::string& name) { return predictor::FindEngine(name) != nullptr; }

// The reported pair that comes first: smallest later access, then earlier one.
const predictor::RacePair* FirstRace(const predictor::Findings& f) {
  const predictor::RacePair* first = nullptr;
  for (const predictor::RacePair& p : f.races.at(0).pairs)
    if (first == nullptr ||
        std::make_pair(p.second.index, p.first.index) < std::make_pair(first->second.index, first->first.index))
      first = &p;
  return first;
}

TEST(OracleEngines, ShbRacesAreAllPredictable) {
  if (!Registered("shb")) GTEST_SKIP() << "SKIPPED: engine 'shb' is not registered on this branch";
  for (uint64_t seed = 0; seed < kTraces; ++seed) {
    auto trace = RandomTrace(TinyTraceOptionsWithFrees(seed), seed);
    OracleResult oracle = RunOracle(trace);
    // Bind the findings first: a range-for over RunEngine(...).races.at(0) would
    // read from a destroyed temporary (at() returns a reference into it).
    const predictor::Findings findings = RunEngine("shb", trace);
    for (const predictor::RacePair& p : findings.races.at(0).pairs)
      ASSERT_TRUE(oracle.races.count({p.first.index, p.second.index}))
          << "shb reports (" << p.first.index << ", " << p.second.index << "), not predictable; seed " << seed;
  }
}

TEST(OracleEngines, HbFirstRaceIsPredictable) {
  if (!Registered("hb")) GTEST_SKIP() << "SKIPPED: engine 'hb' is not registered on this branch";
  for (uint64_t seed = 0; seed < kTraces; ++seed) {
    auto trace = RandomTrace(TinyTraceOptionsWithFrees(seed), seed);
    auto findings = RunEngine("hb", trace);
    const predictor::RacePair* first = FirstRace(findings);
    if (first == nullptr) continue;
    OracleResult oracle = RunOracle(trace);
    ASSERT_TRUE(oracle.races.count({first->first.index, first->second.index})) << "seed " << seed;
  }
}

TEST(OracleEngines, WcpFirstRaceIsARaceOrADeadlock) {
  if (!Registered("wcp")) GTEST_SKIP() << "SKIPPED: engine 'wcp' is not registered on this branch";
  for (uint64_t seed = 0; seed < kTraces; ++seed) {
    auto trace = RandomTrace(TinyTraceOptionsWithFrees(seed), seed);
    auto findings = RunEngine("wcp", trace);
    const predictor::RacePair* first = FirstRace(findings);
    if (first == nullptr) continue;
    OracleResult oracle = RunOracle(trace);
    ASSERT_TRUE(oracle.races.count({first->first.index, first->second.index}) || !oracle.deadlocks.empty())
        << "wcp's first race (" << first->first.index << ", " << first->second.index
        << ") is neither a predictable race nor is there a predictable deadlock; seed " << seed;
  }
}

// The same on accesses of random ranges that overlap in part: rule (a) must see
// two critical sections conflict when their accesses share a byte, whatever
// their start addresses, and SHB's pairs must stay predictable. No atomics:
// an atomic access synchronises on its start address (AtomicSyncObject), so two
// atomics of different sizes that overlap do not synchronise with each other,
// while the oracle orders a load after the store it reads.
TEST(OracleEngines, WcpAndShbOnRandomRanges) {
  if (!Registered("wcp") || !Registered("shb")) GTEST_SKIP() << "SKIPPED: engine 'wcp' or 'shb' is not registered";
  uint64_t firsts = 0;
  for (uint64_t seed = 0; seed < kTraces; ++seed) {
    RandomTraceOptions options = TinyTraceOptions(seed);
    options.atomics = false;
    auto trace = WithRandomRanges(RandomTrace(options, seed), seed);
    const predictor::Findings shb = RunEngine("shb", trace);
    const predictor::Findings wcp = RunEngine("wcp", trace);
    const predictor::RacePair* first = FirstRace(wcp);
    if (shb.races.at(0).pairs.empty() && first == nullptr) continue;
    OracleResult oracle = RunOracle(trace);
    for (const predictor::RacePair& p : shb.races.at(0).pairs)
      ASSERT_TRUE(oracle.races.count({p.first.index, p.second.index}))
          << "shb reports (" << p.first.index << ", " << p.second.index << "), not predictable; seed " << seed;
    if (first == nullptr) continue;
    ++firsts;
    ASSERT_TRUE(oracle.races.count({first->first.index, first->second.index}) || !oracle.deadlocks.empty())
        << "wcp's first race (" << first->first.index << ", " << first->second.index
        << ") is neither a predictable race nor is there a predictable deadlock; seed " << seed;
  }
  EXPECT_GT(firsts, kTraces / 4) << "too few traces with a WCP race: the check proves little";
}

// CP's theorem (Smaragdakis et al.): a trace with a CP race has a predictable
// race or a predictable deadlock. Checked as for WCP, on the first race, with
// frees (even seeds) and on random ranges (odd seeds).
TEST(OracleEngines, CpFirstRaceIsARaceOrADeadlock) {
  if (!Registered("cp")) GTEST_SKIP() << "SKIPPED: engine 'cp' is not registered on this branch";
  uint64_t firsts = 0, cp_only = 0, unconfirmed_later = 0;
  for (uint64_t seed = 0; seed < kTraces; ++seed) {
    auto trace = RandomTrace(TinyTraceOptionsWithFrees(seed), seed);
    if (seed % 2 == 1) {
      RandomTraceOptions options = TinyTraceOptions(seed);
      options.atomics = false;  // as in WcpAndShbOnRandomRanges
      trace = WithRandomRanges(RandomTrace(options, seed), seed);
    }
    const predictor::Findings cp = RunEngine("cp", trace);
    const predictor::RacePair* first = FirstRace(cp);
    if (first == nullptr) continue;
    ++firsts;
    OracleResult oracle = RunOracle(trace);
    ASSERT_FALSE(oracle.truncated) << "seed " << seed;
    ASSERT_TRUE(oracle.races.count({first->first.index, first->second.index}) || !oracle.deadlocks.empty())
        << "cp's first race (" << first->first.index << ", " << first->second.index
        << ") is neither a predictable race nor is there a predictable deadlock; seed " << seed;
    if (RunEngine("hb", trace).races.at(0).pairs.empty()) ++cp_only;
    // Later CP races are not covered by the theorem: count those the oracle
    // does not confirm, for the record.
    for (const predictor::RacePair& p : cp.races.at(0).pairs)
      if (!oracle.races.count({p.first.index, p.second.index}) && oracle.deadlocks.empty()) ++unconfirmed_later;
  }
  std::printf("%llu traces with a CP race (%llu without an HB race); %llu later CP pairs not predictable\n",
              static_cast<unsigned long long>(firsts), static_cast<unsigned long long>(cp_only),
              static_cast<unsigned long long>(unconfirmed_later));
  EXPECT_GT(firsts, kTraces / 4) << "too few traces with a CP race: the check proves little";
  EXPECT_GT(cp_only, 0u) << "no trace where CP predicts a race HB misses: the check proves little";
}

// WCP Figure 5: WCP reports r(z)/w(z), the oracle finds no race but a deadlock.
TEST(OracleEngines, WcpFigure5IsWeaklySound) {
  if (!Registered("wcp")) GTEST_SKIP() << "SKIPPED: engine 'wcp' is not registered on this branch";
  auto p = WcpFigure5();
  auto findings = RunEngine("wcp", p.events());
  EXPECT_FALSE(findings.races.at(0).pairs.empty()) << "WCP should report the r(z)/w(z) pair";
  OracleResult oracle = RunOracle(p.events());
  EXPECT_TRUE(oracle.races.empty());
  EXPECT_FALSE(oracle.deadlocks.empty());
}

}  // namespace
}  // namespace seer::test
