// Properties of the race engines on many random small traces (tests/support/
// random_trace.h), with rwlocks, atomics and signals switched on in turn:
//   HB race pairs are WCP race pairs; SHB race pairs are HB race pairs;
//   HB race pairs are CP race pairs, and CP race pairs are (the paper's) WCP
//   race pairs: HB races ⊆ CP races ⊆ WCP races, by pairs and by racy events;
//   every pair is two conflicting accesses of different threads;
//   HB, SHB, CP and WCP never pair two accesses inside write-mode sections of one lock.
#include <gtest/gtest.h>

#include <map>
#include <set>

#include "predictor/common/sync_ops.h"
#include "tests/predictor/engines/engine_support.h"
#include "tests/support/random_trace.h"
#include "tests/support/test_scale.h"

namespace seer::test {
namespace {

using PairSet = std::set<std::pair<uint64_t, uint64_t>>;  // (first index, second index)

PairSet EventPairs(const predictor::RaceResult& r) {
  PairSet out;
  for (const predictor::RacePair& p : r.pairs) out.insert({p.first.index, p.second.index});
  return out;
}

// The write-mode locks each event holds.
std::vector<std::set<uint64_t>> ExclusiveLocksets(const std::vector<Event>& events) {
  std::map<uint32_t, std::map<uint64_t, int>> held;  // tid -> lock -> depth (write mode only)
  std::vector<std::set<uint64_t>> out(events.size());
  for (const Event& e : events) {
    if (e.kind == EventKind::kAcquire && e.mode == static_cast<uint8_t>(LockMode::kExclusive)) ++held[e.tid][e.object];
    if (e.kind == EventKind::kRelease && e.mode == static_cast<uint8_t>(LockMode::kExclusive) &&
        --held[e.tid][e.object] == 0)
      held[e.tid].erase(e.object);
    for (const auto& [lock, depth] : held[e.tid]) out[e.index].insert(lock);
  }
  return out;
}

struct Variant {
  const char* name;
  RandomTraceOptions options;
};

std::vector<Variant> Variants() {
  std::vector<Variant> v;
  RandomTraceOptions base;
  base.events = 24;
  v.push_back({"plain", base});
  RandomTraceOptions rw = base;
  rw.rwlocks = true;
  v.push_back({"rwlocks", rw});
  RandomTraceOptions at = base;
  at.atomics = true;
  v.push_back({"atomics", at});
  RandomTraceOptions sig = base;
  sig.signals = true;
  sig.threads = 4;
  v.push_back({"signals", sig});
  RandomTraceOptions frees = base;
  frees.frees = 0.15;
  v.push_back({"frees", frees});
  RandomTraceOptions all = base;
  all.rwlocks = all.atomics = all.signals = true;
  all.frees = 0.05;
  all.locks = 3;
  all.threads = 4;
  all.events = 40;
  v.push_back({"everything", all});
  return v;
}

// 6 variants: 15,000 traces per run (a quarter under the sanitizers).
constexpr int kTracesPerVariant = test::Iterations(2500);

TEST(Properties, InclusionsAndConflictsOnRandomTraces) {
  predictor::AnalysisOptions paper;
  paper.rapid_compatible = false;
  uint64_t traces = 0, hb_races = 0, wcp_races = 0, wcp_only = 0, cp_races = 0;
  for (const Variant& variant : Variants()) {
    for (int seed = 0; seed < kTracesPerVariant; ++seed) {
      const std::vector<Event> events = RandomTrace(variant.options, static_cast<uint64_t>(seed));
      TraceInfo info;
      const std::string where = std::string(variant.name) + " seed " + std::to_string(seed);
      const predictor::RaceResult hb = RunEngine("hb", events, info), shb = RunEngine("shb", events, info);
      const predictor::RaceResult wcp = RunEngine("wcp", events, info),
                                  wcp_paper = RunEngine("wcp", events, info, paper);
      const predictor::RaceResult lockset = RunEngine("lockset", events, info);
      const PairSet hb_pairs = EventPairs(hb), shb_pairs = EventPairs(shb);
      const PairSet wcp_pairs = EventPairs(wcp), wcp_paper_pairs = EventPairs(wcp_paper);
      for (const auto& p : hb_pairs) {
        EXPECT_TRUE(wcp_pairs.count(p)) << where << ": HB pair not in WCP";
        EXPECT_TRUE(wcp_paper_pairs.count(p)) << where << ": HB pair not in paper WCP";
      }
      // The paper's queues order less than RAPID's, never more.
      for (const auto& p : wcp_pairs) EXPECT_TRUE(wcp_paper_pairs.count(p)) << where;
      for (const auto& p : shb_pairs) EXPECT_TRUE(hb_pairs.count(p)) << where << ": SHB pair not in HB";
      EXPECT_LE(shb.racy_events, hb.racy_events) << where;
      EXPECT_LE(hb.racy_events, wcp.racy_events) << where;
      const predictor::RaceResult cp = RunEngine("cp", events, info);
      const PairSet cp_pairs = EventPairs(cp);
      for (const auto& p : hb_pairs) EXPECT_TRUE(cp_pairs.count(p)) << where << ": HB pair not in CP";
      // RAPID's WCP orders a thread's own sections (docs/analyses.md), which CP
      // does not: the inclusion is into the paper's WCP.
      for (const auto& p : cp_pairs) EXPECT_TRUE(wcp_paper_pairs.count(p)) << where << ": CP pair not in paper WCP";
      EXPECT_LE(hb.racy_events, cp.racy_events) << where;
      EXPECT_LE(cp.racy_events, wcp_paper.racy_events) << where;

      const std::vector<std::set<uint64_t>> locks = ExclusiveLocksets(events);
      for (const predictor::RaceResult* r : {&hb, &shb, &wcp, &wcp_paper, &cp, &lockset}) {
        for (const predictor::RacePair& p : r->pairs) {
          const Event& a = events[p.first.index];
          const Event& b = events[p.second.index];
          ASSERT_LT(a.index, b.index) << where << " " << r->engine;
          EXPECT_NE(a.tid, b.tid) << where << " " << r->engine;
          EXPECT_TRUE(a.object < b.object + std::max<uint64_t>(1, b.aux) &&
                      b.object < a.object + std::max<uint64_t>(1, a.aux))
              << where << " " << r->engine << ": no common byte";
          // A free writes its block, and so does the allocation of a heap block.
          auto writes = [](EventKind k) {
            return k == EventKind::kWrite || k == EventKind::kAtomicStore || k == EventKind::kAtomicRmw ||
                   k == EventKind::kFree || k == EventKind::kAlloc;
          };
          const bool a_write = writes(a.kind);
          const bool b_write = writes(b.kind);
          EXPECT_TRUE(a_write || b_write) << where << " " << r->engine << ": two reads";
          EXPECT_FALSE(IsAtomicAccess(a.kind) && IsAtomicAccess(b.kind)) << where << " " << r->engine;
          if (r == &lockset) continue;
          for (uint64_t l : locks[a.index])
            EXPECT_FALSE(locks[b.index].count(l)) << where << " " << r->engine << ": both hold lock " << l;
        }
      }
      ++traces;
      hb_races += hb_pairs.size();
      wcp_races += wcp_paper_pairs.size();
      cp_races += cp_pairs.size();
      wcp_only += wcp_paper_pairs.size() - hb_pairs.size();
    }
  }
  // The properties are only worth something if the traces have races, and WCP
  // finds some HB does not.
  EXPECT_EQ(traces, Variants().size() * kTracesPerVariant);
  EXPECT_GT(hb_races, traces / 2);
  EXPECT_GT(wcp_only, 0u);
  // CP lies strictly between: it finds races HB does not, and WCP finds more.
  EXPECT_GT(cp_races, hb_races);
  EXPECT_GT(wcp_races, cp_races);
  std::printf("%llu traces, %llu HB pairs, %llu CP pairs, %llu WCP pairs (%llu not HB)\n",
              static_cast<unsigned long long>(traces), static_cast<unsigned long long>(hb_races),
              static_cast<unsigned long long>(cp_races), static_cast<unsigned long long>(wcp_races),
              static_cast<unsigned long long>(wcp_only));
}

}  // namespace
}  // namespace seer::test
