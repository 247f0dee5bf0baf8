// The trace generator: exact event counts, well-formedness (fork/join, lock
// semantics, fixed access sites) and determinism.
#include <gtest/gtest.h>

#include <map>

#include "gen/generator.h"
#include "interop/std_writer.h"
#include "tests/support/cli_test_util.h"

namespace seer::gen {
namespace {

class GenTest : public test::TempDirTest {
 protected:
  std::vector<Event> Generated(const GenOptions& o, TraceInfo* info = nullptr) {
    std::unique_ptr<TraceWriter> w;
    EXPECT_TRUE(TraceWriter::Create(Path("g.seer"), {}, &w).ok());
    Status s = Generate(o, w.get());
    EXPECT_TRUE(s.ok()) << s.ToString();
    EXPECT_TRUE(w->Close().ok());
    std::vector<Event> events;
    s = test::ReadTrace(Path("g.seer"), &events, info);
    EXPECT_TRUE(s.ok()) << s.ToString();
    return events;
  }
  std::string GeneratedText(const GenOptions& o) {
    const std::string path = Path("g.std");
    std::FILE* f = std::fopen(path.c_str(), "w");
    interop::StdTextWriter w(f);
    Status s = Generate(o, &w);
    EXPECT_TRUE(s.ok()) << s.ToString();
    EXPECT_TRUE(w.Close().ok());
    std::fclose(f);
    return test::ReadFile(path);
  }
};

// Checks every property a generated trace promises; returns the events per kind.
std::map<EventKind, uint64_t> CheckWellFormed(const GenOptions& o, const std::vector<Event>& events) {
  std::map<EventKind, uint64_t> kinds;
  std::vector<int64_t> holder(o.locks, -1);
  std::vector<bool> forked(o.threads, false), joined(o.threads, false);
  forked[0] = true;
  std::map<uint64_t, std::pair<uint64_t, EventKind>> site;  // pc -> (variable, kind)
  for (const Event& e : events) {
    ++kinds[e.kind];
    EXPECT_LT(e.tid, o.threads);
    EXPECT_TRUE(forked[e.tid]) << "event " << e.index << " of thread " << e.tid << " before its fork";
    EXPECT_FALSE(joined[e.tid]) << "event " << e.index << " of thread " << e.tid << " after its join";
    switch (e.kind) {
      case EventKind::kRead:
      case EventKind::kWrite: {
        EXPECT_LT(e.object, o.variables);
        EXPECT_LT(e.pc, o.locations);
        EXPECT_EQ(e.aux, 1u);
        auto [it, fresh] = site.try_emplace(e.pc, e.object, e.kind);
        EXPECT_EQ(it->second, std::make_pair(e.object, e.kind)) << "location " << e.pc << " changed its site";
        break;
      }
      case EventKind::kAcquire:
        EXPECT_LT(e.object, o.locks);
        EXPECT_EQ(holder[e.object], -1) << "event " << e.index << ": lock " << e.object << " is held";
        EXPECT_EQ(e.pc, o.locations + 2 * e.object);
        holder[e.object] = e.tid;
        break;
      case EventKind::kRelease:
        EXPECT_EQ(holder[e.object], static_cast<int64_t>(e.tid)) << "event " << e.index;
        EXPECT_EQ(e.pc, o.locations + 2 * e.object + 1);
        holder[e.object] = -1;
        break;
      case EventKind::kFork:
        EXPECT_EQ(e.tid, 0u);
        EXPECT_FALSE(forked[e.object]);
        forked[e.object] = true;
        break;
      case EventKind::kJoin:
        EXPECT_EQ(e.tid, 0u);
        joined[e.object] = true;
        break;
      default: ADD_FAILURE() << "unexpected kind " << EventKindName(e.kind);
    }
  }
  for (uint32_t l = 0; l < o.locks; ++l) EXPECT_EQ(holder[l], -1) << "lock " << l << " held at the end";
  for (uint32_t t = 1; t < o.threads; ++t) {
    EXPECT_TRUE(forked[t]);
    EXPECT_TRUE(joined[t]);
  }
  return kinds;
}

TEST_F(GenTest, WellFormedWithExactCounts) {
  for (uint64_t seed : {1, 2, 3}) {
    GenOptions o;
    o.events = 20000;
    o.threads = 5;
    o.locks = 3;
    o.variables = 20;
    o.locations = 50;
    o.seed = seed;
    o.max_nesting = 3;
    o.random_order_fraction = 0.5;  // provoke lock-order cycles the scheduler must break
    TraceInfo info;
    std::vector<Event> events = Generated(o, &info);
    ASSERT_EQ(events.size(), o.events);
    auto kinds = CheckWellFormed(o, events);
    EXPECT_EQ(kinds[EventKind::kFork], 4u);
    EXPECT_EQ(kinds[EventKind::kJoin], 4u);
    EXPECT_EQ(kinds[EventKind::kAcquire], kinds[EventKind::kRelease]);
    EXPECT_GT(kinds[EventKind::kAcquire], 0u);
    EXPECT_GT(kinds[EventKind::kRead], 0u);
    EXPECT_GT(kinds[EventKind::kWrite], 0u);
    EXPECT_EQ(info.counters.events, o.events);
    EXPECT_EQ(info.counters.distinct_threads, 5u);
    EXPECT_LE(info.counters.distinct_variables, 20u);
    EXPECT_LE(info.counters.distinct_locations, 50u);
    EXPECT_EQ(info.Meta(meta::kSource), "gen");
    // Forks come near the start (thread 0 runs them first, interleaved with the
    // threads already forked), joins last.
    EXPECT_EQ(events[0].kind, EventKind::kFork);
    uint64_t last_fork = 0;
    for (const Event& e : events)
      if (e.kind == EventKind::kFork) last_fork = e.index;
    EXPECT_LT(last_fork, 200u);
    for (size_t i = events.size() - 4; i < events.size(); ++i) EXPECT_EQ(events[i].kind, EventKind::kJoin);
  }
}

TEST_F(GenTest, EveryThreadGetsWork) {
  GenOptions o;
  o.events = 40000;
  o.threads = 8;
  o.random_order_fraction = 0.3;
  std::vector<Event> events = Generated(o);
  std::vector<uint64_t> per_thread(8);
  for (const Event& e : events) ++per_thread[e.tid];
  // A fair random scheduler gives each thread about 1/8; a thread stuck in a
  // lock cycle would get almost nothing.
  for (uint64_t n : per_thread) EXPECT_GT(n, o.events / 16);
}

TEST_F(GenTest, EdgeCases) {
  GenOptions o;
  o.threads = 1;
  o.events = 1;
  o.locks = 0;
  auto events = Generated(o);
  ASSERT_EQ(events.size(), 1u);
  EXPECT_TRUE(IsAccess(events[0].kind));

  o.threads = 3;
  o.events = 4;  // forks and joins only
  o.locks = 2;
  events = Generated(o);
  ASSERT_EQ(events.size(), 4u);
  CheckWellFormed(o, events);

  o.protected_fraction = 1.0;
  o.events = 7;  // room for one protected access at most
  events = Generated(o);
  ASSERT_EQ(events.size(), 7u);
  CheckWellFormed(o, events);
}

TEST_F(GenTest, InvalidOptions) {
  GenOptions o;
  o.threads = 0;
  EXPECT_NE(ValidateGenOptions(o).message().find("--threads"), std::string::npos);
  o = GenOptions();
  o.threads = 10;
  o.events = 5;
  EXPECT_NE(ValidateGenOptions(o).message().find("--events"), std::string::npos);
  o = GenOptions();
  o.write_fraction = 1.5;
  EXPECT_NE(ValidateGenOptions(o).message().find("--write-fraction"), std::string::npos);
  o = GenOptions();
  o.variables = 0;
  EXPECT_FALSE(ValidateGenOptions(o).ok());
  o = GenOptions();
  o.locations = 0;
  EXPECT_FALSE(ValidateGenOptions(o).ok());
}

TEST_F(GenTest, SameSeedSameText) {
  GenOptions o;
  o.events = 30000;
  o.seed = 42;
  const std::string a = GeneratedText(o);
  const std::string b = GeneratedText(o);
  EXPECT_EQ(a, b);
  o.seed = 43;
  EXPECT_NE(GeneratedText(o), a);
  EXPECT_EQ(std::count(a.begin(), a.end(), '\n'), 30000);
}

}  // namespace
}  // namespace seer::gen
