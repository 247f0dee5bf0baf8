// On two-thread traces SeqCheck is complete (paper, Theorem 2). A small
// exhaustive search, independent of the closure, enumerates every reachable
// deadlocked state of tiny two-thread traces; SeqCheck (without prefix
// reduction) must find exactly those deadlocks. Only reads matter through the
// write they see, so the search state is (events run per thread, last writer of
// each variable).
#include <gtest/gtest.h>

#include <map>
#include <set>
#include <tuple>

#include "predictor/seqcheck/deadlocks.h"
#include "predictor/seqcheck/races.h"
#include "tests/support/random_trace.h"

namespace seer::seqcheck {
namespace {

struct Search {
  const std::vector<Event>& trace;
  std::vector<size_t> thread[2];        // trace positions per thread (tids 0 and 1)
  std::vector<int64_t> recorded;        // reads: the write they saw, -1 none
  std::set<std::tuple<size_t, size_t, std::map<uint64_t, int64_t>>> seen;

  explicit Search(const std::vector<Event>& t) : trace(t), recorded(t.size(), -1) {
    std::map<uint64_t, int64_t> last;
    for (size_t i = 0; i < t.size(); ++i) {
      thread[t[i].tid].push_back(i);
      if (t[i].kind == EventKind::kRead) recorded[i] = last.count(t[i].object) ? last[t[i].object] : -1;
      if (t[i].kind == EventKind::kWrite) last[t[i].object] = static_cast<int64_t>(i);
    }
  }
  // Locks held (lock -> shared?) by thread t after running n of its events.
  std::map<uint64_t, bool> Held(int t, size_t n) const {
    std::map<uint64_t, bool> h;
    for (size_t k = 0; k < n; ++k) {
      const Event& e = trace[thread[t][k]];
      if (e.kind == EventKind::kAcquire) h[e.object] = e.mode == 1;
      if (e.kind == EventKind::kRelease) h.erase(e.object);
    }
    return h;
  }
  static bool Blocks(const std::map<uint64_t, bool>& other, const Event& acquire) {
    auto it = other.find(acquire.object);
    return it != other.end() && !(it->second && acquire.mode == 1);
  }
  // Can the prefixes (c0, c1) run, every read seeing its recorded write?
  bool Reach(size_t i, size_t j, std::map<uint64_t, int64_t> last, size_t c0, size_t c1) {
    if (i == c0 && j == c1) return true;
    if (!seen.insert({i, j, last}).second) return false;
    for (int t = 0; t < 2; ++t) {
      const size_t n = t == 0 ? i : j, c = t == 0 ? c0 : c1;
      if (n == c) continue;
      const size_t at = thread[t][n];
      const Event& e = trace[at];
      if (e.kind == EventKind::kAcquire && Blocks(Held(1 - t, t == 0 ? j : i), e)) continue;
      auto next = last;
      if (e.kind == EventKind::kRead) {
        auto it = last.find(e.object);
        if ((it == last.end() ? -1 : it->second) != recorded[at]) continue;
      }
      if (e.kind == EventKind::kWrite) next[e.object] = static_cast<int64_t>(at);
      if (Reach(t == 0 ? i + 1 : i, t == 1 ? j + 1 : j, next, c0, c1)) return true;
    }
    return false;
  }
  // Every deadlocked state: pairs of blocked acquisitions (trace indices).
  std::set<std::pair<uint64_t, uint64_t>> Deadlocks() {
    std::set<std::pair<uint64_t, uint64_t>> out;
    for (size_t c0 = 0; c0 < thread[0].size(); ++c0)
      for (size_t c1 = 0; c1 < thread[1].size(); ++c1) {
        const Event &b0 = trace[thread[0][c0]], &b1 = trace[thread[1][c1]];
        if (b0.kind != EventKind::kAcquire || b1.kind != EventKind::kAcquire) continue;
        if (!Blocks(Held(1, c1), b0) || !Blocks(Held(0, c0), b1)) continue;
        seen.clear();
        if (Reach(0, 0, {}, c0, c1)) out.insert({b0.index, b1.index});
      }
    return out;
  }
  // Every pair of conflicting plain accesses that can both be next at once.
  std::set<std::pair<uint64_t, uint64_t>> Races() {
    std::set<std::pair<uint64_t, uint64_t>> out;
    for (size_t c0 = 0; c0 < thread[0].size(); ++c0)
      for (size_t c1 = 0; c1 < thread[1].size(); ++c1) {
        const Event &a = trace[thread[0][c0]], &b = trace[thread[1][c1]];
        if (!IsAccess(a.kind) || !IsAccess(b.kind) || a.object != b.object) continue;
        if (a.kind != EventKind::kWrite && b.kind != EventKind::kWrite) continue;
        seen.clear();
        if (Reach(0, 0, {}, c0, c1)) out.insert({a.index, b.index});
      }
    return out;
  }
};

TEST(SeqCheckTwoThreads, RacesMatchExhaustiveSearch) {
  uint64_t total = 0;
  for (uint64_t seed = 0; seed < 3000; ++seed) {
    test::RandomTraceOptions o;
    o.threads = 2;
    o.fork_join = false;
    o.events = 8 + seed % 16;
    o.locks = 1 + seed % 2;
    o.variables = 1 + seed % 3;
    o.rwlocks = seed % 3 == 1;
    std::vector<Event> trace = test::RandomTrace(o, seed);
    bool two = true;
    for (const Event& e : trace) two = two && e.tid < 2;
    if (!two) continue;
    Search search(trace);
    std::set<std::pair<uint64_t, uint64_t>> expected = search.Races();
    TraceModel m(trace);
    FeasibilityOptions f;
    f.prefix_reduction = false;
    FeasibilityChecker fc(m, f);
    SeqCheckStats stats;
    std::set<std::pair<uint64_t, uint64_t>> got;
    for (size_t i : search.thread[0])
      for (size_t j : search.thread[1]) {
        const Event &a = trace[i], &b = trace[j];
        if (!IsAccess(a.kind) || !IsAccess(b.kind) || a.object != b.object) continue;
        if (a.kind != EventKind::kWrite && b.kind != EventKind::kWrite) continue;
        if (ConfirmRace(m, &fc, static_cast<uint32_t>(i), static_cast<uint32_t>(j), &stats).confirmed)
          got.insert({a.index, b.index});
      }
    ASSERT_EQ(stats.invalid_witnesses, 0u);
    EXPECT_EQ(got, expected) << "seed " << seed;
    total += expected.size();
  }
  EXPECT_GT(total, 500u);
}

TEST(SeqCheckTwoThreads, DeadlocksMatchExhaustiveSearch) {
  uint64_t total = 0, reduced_found = 0;
  for (uint64_t seed = 0; seed < 6000; ++seed) {
    test::RandomTraceOptions o;
    o.threads = 2;
    o.fork_join = false;
    o.events = 10 + seed % 20;
    o.locks = 2 + seed % 2;
    o.variables = 1 + seed % 3;
    o.max_nesting = 2;
    o.rwlocks = seed % 3 == 1;
    std::vector<Event> trace = test::RandomTrace(o, seed);
    bool two = true;
    for (const Event& e : trace) two = two && e.tid < 2;
    if (!two) continue;
    std::set<std::pair<uint64_t, uint64_t>> expected = Search(trace).Deadlocks();

    TraceModel m(trace);
    DeadlockOptions d;
    d.feasibility.prefix_reduction = false;
    SeqCheckStats stats;
    std::set<std::pair<uint64_t, uint64_t>> got;
    for (const Deadlock& x : PredictDeadlocks(m, d, &stats)) {
      ASSERT_EQ(x.cycle.size(), 2u);
      const DeadlockThread& a = x.cycle[0].tid == 0 ? x.cycle[0] : x.cycle[1];
      const DeadlockThread& b = x.cycle[0].tid == 0 ? x.cycle[1] : x.cycle[0];
      got.insert({a.blocked_acquire.index, b.blocked_acquire.index});
    }
    ASSERT_EQ(stats.invalid_witnesses, 0u);
    EXPECT_EQ(got, expected) << "seed " << seed;
    total += expected.size();
    // With prefix reduction (the default) SeqCheck may miss some; never more.
    DeadlockOptions fast;
    reduced_found += PredictDeadlocks(m, fast, &stats).size();
    ASSERT_EQ(stats.invalid_witnesses, 0u);
  }
  EXPECT_GT(total, 50u);  // the comparison was exercised
  EXPECT_LE(reduced_found, total);
  std::printf("two-thread deadlocks: %llu by exhaustive search, %llu found with prefix reduction\n",
              static_cast<unsigned long long>(total), static_cast<unsigned long long>(reduced_found));
}

}  // namespace
}  // namespace seer::seqcheck
