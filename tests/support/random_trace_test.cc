#include "tests/support/random_trace.h"

#include <gtest/gtest.h>

#include <map>
#include <set>

namespace seer::test {
namespace {

// The generator's output must itself be well-formed, or every property test
// built on it proves nothing.
TEST(RandomTrace, IsWellFormedAndDeterministic) {
  for (uint64_t seed = 0; seed < 3000; ++seed) {
    RandomTraceOptions o;
    o.threads = 2 + seed % 3;
    o.events = 6 + seed % 20;
    o.rwlocks = seed % 2;
    o.atomics = seed % 3 == 0;
    o.signals = seed % 5 == 0;
    auto trace = RandomTrace(o, seed);
    auto again = RandomTrace(o, seed);
    ASSERT_EQ(trace.size(), again.size());
    std::map<uint64_t, int> exclusive;  // lock -> holder
    std::map<uint64_t, int> shared;
    std::set<uint32_t> started{0}, joined, ended_threads;
    std::map<uint32_t, std::vector<uint64_t>> held;
    for (size_t i = 0; i < trace.size(); ++i) {
      const Event& e = trace[i];
      ASSERT_EQ(e.index, i);
      ASSERT_EQ(e.kind, again[i].kind);
      ASSERT_EQ(e.object, again[i].object);
      ASSERT_TRUE(started.count(e.tid)) << "event of thread " << e.tid << " before its fork, seed " << seed;
      ASSERT_FALSE(joined.count(e.tid)) << "event after join, seed " << seed;
      if (e.kind == EventKind::kFork) started.insert(static_cast<uint32_t>(e.object));
      if (e.kind == EventKind::kJoin) {
        joined.insert(static_cast<uint32_t>(e.object));
        ASSERT_TRUE(held[static_cast<uint32_t>(e.object)].empty());
      }
      if (e.kind == EventKind::kAcquire) {
        ASSERT_EQ(exclusive.count(e.object), 0u) << "seed " << seed;
        if (e.mode == 1)
          ++shared[e.object];
        else {
          ASSERT_EQ(shared[e.object], 0) << "seed " << seed;
          exclusive[e.object] = static_cast<int>(e.tid);
        }
        held[e.tid].push_back(e.object);
      }
      if (e.kind == EventKind::kRelease) {
        ASSERT_FALSE(held[e.tid].empty());
        ASSERT_EQ(held[e.tid].back(), e.object) << "releases are nested";
        held[e.tid].pop_back();
        if (e.mode == 1)
          --shared[e.object];
        else
          exclusive.erase(e.object);
      }
    }
    for (auto& [t, h] : held) {
      ASSERT_TRUE(h.empty()) << "thread " << t << " ends holding a lock, seed " << seed;
    }
    if (o.fork_join) {
      ASSERT_EQ(joined.size(), o.threads - 1) << "seed " << seed;
    }
  }
}

}  // namespace
}  // namespace seer::test
