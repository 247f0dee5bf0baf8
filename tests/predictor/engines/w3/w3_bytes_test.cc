// Lockset-W3 on accesses of several bytes: a variable is an 8-byte word and
// accesses conflict on shared bytes, so ranges, unaligned and mixed-size accesses
// that start at different addresses are compared, adjacent bytes are not, and
// write-read dependencies and frees act per byte. Checked on hand-made traces
// and, against the brute-force oracle, on tiny random traces with random ranges.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <random>

#include "tests/oracle/oracle.h"
#include "tests/oracle/tiny_traces.h"
#include "tests/predictor/engines/w3/w3_support.h"
#include "tests/support/trace_builder.h"

namespace seer::test {
namespace {

TEST(W3Bytes, OverlappingAccessesThatStartApartRace) {
  TraceBuilder m;  // memcpy into a buffer, one element read by another thread
  m.Add("T1", EventKind::kWrite, 0x1000, 1, 64).Add("T2", EventKind::kRead, 0x1014, 2, 4);
  EXPECT_EQ(W3Pairs(m.events()), (Pairs{{1, 2}}));
  TraceBuilder u;  // an unaligned 8-byte write across two words, a byte write in the second
  u.Add("T1", EventKind::kWrite, 0x2003, 1, 8).Add("T2", EventKind::kWrite, 0x2009, 2, 1);
  EXPECT_EQ(W3Pairs(u.events()), (Pairs{{1, 2}}));
  TraceBuilder s;  // a struct copy reads a field another thread writes
  s.Add("T1", EventKind::kWrite, 0x3008, 1, 4).Add("T2", EventKind::kRead, 0x3000, 2, 24);
  EXPECT_EQ(W3Pairs(s.events()), (Pairs{{1, 2}}));
}

TEST(W3Bytes, AdjacentBytesOfOneWordDoNotRace) {
  TraceBuilder b;
  b.Add("T1", EventKind::kWrite, 0x1000, 1, 1).Add("T2", EventKind::kWrite, 0x1001, 2, 1);
  b.Add("T1", EventKind::kWrite, 0x1004, 3, 2).Add("T2", EventKind::kWrite, 0x1006, 4, 2);
  b.Add("T1", EventKind::kRead, 0x1008, 5, 4).Add("T2", EventKind::kWrite, 0x100c, 6, 4);
  EXPECT_TRUE(W3Pairs(b.events()).empty());
  // One more access that covers them all races with every write of the other thread.
  b.Add("T2", EventKind::kRead, 0x1000, 7, 16);
  EXPECT_EQ(W3Pairs(b.events()), (Pairs{{1, 7}, {3, 7}}));
  // The same after a whole-word access made the word one variable (cell).
  TraceBuilder c;
  c.Add("T1", EventKind::kWrite, 0x2000, 1, 8).Add("T1", EventKind::kWrite, 0x2000, 2, 1);
  c.Add("T2", EventKind::kWrite, 0x2001, 3, 1).Add("T2", EventKind::kRead, 0x2004, 4, 4);
  EXPECT_EQ(W3Pairs(c.events()), (Pairs{{1, 3}, {1, 4}}));
}

// Ranges of eight words meet in every word, but each pair of accesses counts once.
TEST(W3Bytes, RangesSpanningWordsCountOnce) {
  TraceBuilder b;
  b.Add("T1", EventKind::kWrite, 0x1000, 1, 64).Add("T2", EventKind::kWrite, 0x1000, 2, 64);
  b.Add("T2", EventKind::kRead, 0x1000, 3, 64);  // same thread: ordered after pc 2, races with pc 1
  for (const char* engine : {"w3", "w3-linear"}) {
    auto f = RunEngine(engine, b.events());
    ASSERT_EQ(f.races.size(), 1u);
    ASSERT_EQ(f.races[0].pairs.size(), 2u) << engine;
    for (const predictor::RacePair& p : f.races[0].pairs) EXPECT_EQ(p.occurrences, 1u) << engine;
    EXPECT_EQ(f.races[0].racy_events, 2u) << engine;
  }
}

// The read of the flag byte reads T1's first write, not the later write of the
// other byte of the word: only the first is ordered before T2, so the writes of
// `a` race. Keeping one last write per word would hide that race.
TEST(W3Bytes, WriteReadDependencyIsPerByte) {
  TraceBuilder b;
  b.Add("T1", EventKind::kWrite, 0x101, 1, 1);  // flag
  b.Add("T1", EventKind::kWrite, 0x100, 2, 1);  // a
  b.Add("T2", EventKind::kRead, 0x101, 3, 1);   // reads the flag
  b.Add("T2", EventKind::kWrite, 0x100, 4, 1);  // a
  EXPECT_EQ(W3Pairs(b.events()), (Pairs{{1, 3}, {2, 4}}));
  // The same inside a word an earlier whole-word write made one variable (cell).
  TraceBuilder w;
  w.Add("T1", EventKind::kWrite, 0x100, 5, 8);
  w.Add("T1", EventKind::kWrite, 0x101, 1, 1).Add("T1", EventKind::kWrite, 0x100, 2, 1);
  w.Add("T2", EventKind::kRead, 0x101, 3, 1).Add("T2", EventKind::kWrite, 0x100, 4, 1);
  EXPECT_EQ(W3Pairs(w.events()), (Pairs{{1, 3}, {2, 4}}));
  // A read of both bytes reads both writes: ordered after both.
  TraceBuilder c;
  c.Add("T1", EventKind::kWrite, 0x101, 1, 1).Add("T1", EventKind::kWrite, 0x100, 2, 1);
  c.Add("T2", EventKind::kRead, 0x100, 3, 2).Add("T2", EventKind::kWrite, 0x100, 4, 1);
  EXPECT_EQ(W3Pairs(c.events()), (Pairs{{1, 3}, {2, 3}}));
}

// An allocation of half a word renews those bytes only; pairs found before it
// stay (the exact variant traverses them before it forgets the bytes). The
// free before it writes its bytes (T1's own), and no access after the
// allocation meets that write.
TEST(W3Bytes, AllocOfPartOfAWordForgetsOnlyItsBytes) {
  TraceBuilder b;
  b.Add("T1", EventKind::kWrite, 0x100, 1, 8);
  b.Add("T2", EventKind::kWrite, 0x104, 2, 4);  // races with pc 1
  b.Add("T1", EventKind::kFree, 0x100, 3, 4);
  b.Add("T3", EventKind::kAlloc, 0x100, 6, 4);
  b.Add("T3", EventKind::kWrite, 0x100, 4, 4);  // fresh bytes: no race
  b.Add("T3", EventKind::kWrite, 0x104, 5, 1);  // kept bytes: races with pcs 1 and 2
  EXPECT_EQ(W3Pairs(b.events()), (Pairs{{1, 2}, {1, 5}, {2, 5}}));
}

// Bytes of one word accessed one at a time are separate variables: writes of a
// neighbouring byte do not use up the edge bound of a byte (TR §4.5's case, as in
// W3.LinearVariantMissesRacesBeyondItsEdgeBound, with a neighbour written between).
TEST(W3Bytes, NeighbouringBytesKeepTheirOwnEdgeBound) {
  TraceBuilder b;
  for (uint64_t i = 1; i <= 27; ++i)
    b.Add("T1", EventKind::kWrite, 0x100, i, 1).Add("T1", EventKind::kWrite, 0x101, 100 + i, 1);
  b.Add("T2", EventKind::kWrite, 0x100, 28, 1);
  predictor::AnalysisOptions o;
  o.w3_edges = 25;
  EXPECT_EQ(RacePcPairs(RunEngine("w3-linear", b.events(), o)).size(), 26u);
  EXPECT_EQ(RacePcPairs(RunEngine("w3", b.events(), o)).size(), 27u);
}

TEST(W3Bytes, MixedSizeAtomicsDoNotRace) {
  TraceBuilder b;
  // Two stores: a load would read T1's store and be ordered after it.
  b.Add("T1", EventKind::kAtomicStore, 0x100, 1, 8).Add("T2", EventKind::kAtomicStore, 0x104, 2, 4);
  EXPECT_TRUE(W3Pairs(b.events()).empty());
  b.Add("T2", EventKind::kWrite, 0x106, 3, 1);
  EXPECT_EQ(W3Pairs(b.events()), (Pairs{{1, 3}}));
}

// TR Prop. 3.5 on bytes: no predictable race (by the oracle, which works byte by
// byte) is missed, the variants agree, and two-thread lock-free pairs are real.
TEST(W3Bytes, CompleteAgainstTheOracleOnRandomRanges) {
  uint64_t races = 0, sound_checked = 0;
  for (uint64_t seed = 0; seed < 2000; ++seed) {
    auto trace = WithRandomRanges(RandomTrace(TinyTraceOptions(seed), seed), seed);
    OracleResult oracle = RunOracle(trace);
    ASSERT_FALSE(oracle.truncated) << "seed " << seed;
    Pairs exact = RacePcPairs(RunEngine("w3", trace));
    ASSERT_EQ(exact, RacePcPairs(RunEngine("w3-linear", trace))) << "seed " << seed;
    for (const auto& p : oracle.adjacent_race_pcs)
      ASSERT_TRUE(exact.count(p)) << "misses the predictable race (" << p.first << ", " << p.second << "), seed "
                                  << seed;
    races += oracle.adjacent_race_pcs.size();
    // TR Prop. 3.8 on bytes: with two threads, a reported pair of accesses that
    // hold no lock is predictable, so in particular they share a byte.
    uint32_t threads = 0;
    std::map<uint64_t, bool> lock_free;  // pc -> no lock held (pcs are unique per event)
    std::map<uint32_t, int> held;
    for (const Event& e : trace) {
      threads = std::max(threads, e.tid + 1);
      held[e.tid] += e.kind == EventKind::kAcquire ? 1 : e.kind == EventKind::kRelease ? -1 : 0;
      lock_free[e.pc] = held[e.tid] == 0 && !IsAtomicAccess(e.kind);
    }
    if (threads > 2) continue;
    for (const auto& p : exact) {
      if (!lock_free[p.first] || !lock_free[p.second]) continue;
      ++sound_checked;
      ASSERT_TRUE(oracle.race_pcs.count(p))
          << "reports (" << p.first << ", " << p.second
          << ") on two threads without locks, but it is not predictable; seed " << seed;
    }
  }
  EXPECT_GT(races, 500u) << "too few predictable races: the completeness check proves little";
  EXPECT_GT(sound_checked, 200u) << "too few two-thread lock-free pairs checked";
}

// Exact and linear agree on larger random traces with ranges.
TEST(W3Bytes, ExactAndLinearAgreeOnRandomRanges) {
  uint64_t with_races = 0;
  for (uint64_t seed = 0; seed < 3000; ++seed) {
    bool racy;
    ASSERT_EQ(ExactLinearDifference(WithRandomRanges(RandomTrace(AgreementTraceOptions(seed), seed), seed), &racy), "")
        << "seed " << seed;
    with_races += racy;
  }
  EXPECT_GT(with_races, 300u) << "the random traces hardly race: the agreement proves little";
}

}  // namespace
}  // namespace seer::test
