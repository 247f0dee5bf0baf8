// The cp engine against CP's definition (cp_reference.h) on many random
// traces, and on small traces where an edge into an acquire is found only
// after an access that it orders (the case that makes CP hard online).
#include <gtest/gtest.h>

#include "predictor/engines/cp/cp_engine.h"
#include "tests/predictor/engines/cp_reference.h"
#include "tests/predictor/engines/engine_support.h"
#include "tests/support/random_trace.h"
#include "tests/support/test_scale.h"

namespace seer::test {
namespace {

struct CpRun {
  predictor::RaceResult result;
  uint64_t late_edges = 0;
  uint64_t waiting_races = 0;
  uint64_t waiting_sections = 0;
};

CpRun RunCp(const std::vector<Event>& events) {
  predictor::CpEngine engine{predictor::AnalysisOptions()};
  EXPECT_TRUE(engine.Begin(TraceInfo()).ok());
  engine.Process(events.data(), events.size());
  predictor::Findings findings;
  EXPECT_TRUE(engine.Finish(&findings).ok());
  return CpRun{findings.races.at(0), engine.late_edges(), engine.max_waiting_races(), engine.max_waiting_sections()};
}

std::vector<std::pair<const char*, RandomTraceOptions>> Variants() {
  std::vector<std::pair<const char*, RandomTraceOptions>> v;
  RandomTraceOptions base;
  base.events = 30;
  v.push_back({"plain", base});
  // Deeper nesting and more locks: more sections open in an access's past.
  RandomTraceOptions nested = base;
  nested.locks = 4;
  nested.max_nesting = 3;
  nested.threads = 4;
  nested.events = 40;
  v.push_back({"nested", nested});
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
  RandomTraceOptions all = nested;
  all.rwlocks = all.atomics = all.signals = true;
  all.frees = 0.05;
  v.push_back({"everything", all});
  return v;
}

constexpr int kTracesPerVariant = test::Iterations(1500);  // tests/support/test_scale.h

// A failing trace, for the message: its events, the definition's racy events
// and the engine's pairs.
std::string Describe(const std::vector<Event>& events, const CpReference& ref, const predictor::RaceResult& r) {
  std::string out;
  for (const Event& e : events)
    out += std::to_string(e.index) + ": T" + std::to_string(e.tid) + " " + std::string(EventKindName(e.kind)) + " " +
           std::to_string(e.object) + " mode " + std::to_string(e.mode) + "\n";
  out += "racy by definition:";
  for (uint64_t i : ref.racy_events) out += " " + std::to_string(i);
  out += "\nengine pairs:";
  for (const predictor::RacePair& p : r.pairs)
    out += " (" + std::to_string(p.first.index) + "," + std::to_string(p.second.index) + ")";
  return out;
}

// Racy events are exactly the accesses with an earlier conflicting access not
// CP-before them; every reported pair is CP-unordered.
TEST(CpEngine, AgreesWithTheDefinitionOnRandomTraces) {
  uint64_t races = 0, late_edges = 0, waiting = 0, traces_with_race = 0;
  for (const auto& [name, options] : Variants()) {
    for (int seed = 0; seed < kTracesPerVariant; ++seed) {
      const std::vector<Event> events = RandomTrace(options, static_cast<uint64_t>(seed));
      const std::string where = std::string(name) + " seed " + std::to_string(seed);
      const CpReference ref = ComputeCpReference(events);
      const CpRun run = RunCp(events);
      // With atomics the access histories (access_history.h, shared by the clock
      // engines) keep a thread's last access only: a plain write followed by an
      // atomic one of the same thread is not checked against a later atomic
      // access. Only the inclusion holds there.
      if (options.atomics) {
        ASSERT_LE(run.result.racy_events, ref.racy_events.size()) << where << "\n" << Describe(events, ref, run.result);
      } else {
        ASSERT_EQ(run.result.racy_events, ref.racy_events.size()) << where << "\n" << Describe(events, ref, run.result);
      }
      for (const predictor::RacePair& p : run.result.pairs)
        ASSERT_TRUE(ref.race_pairs.count({p.first.index, p.second.index}))
            << where << ": (" << p.first.index << ", " << p.second.index << ") is CP-ordered";
      races += ref.race_pairs.size();
      traces_with_race += !ref.race_pairs.empty();
      late_edges += run.late_edges;
      waiting += run.waiting_races;
    }
  }
  // The comparison proves little unless the traces race and reach the late paths.
  EXPECT_GT(traces_with_race, Variants().size() * kTracesPerVariant / 3);
  EXPECT_GT(late_edges, AtLeast(100));
  EXPECT_GT(waiting, AtLeast(100));
  std::printf("%llu CP race pairs, %llu late edges, %llu waiting checks\n", static_cast<unsigned long long>(races),
              static_cast<unsigned long long>(late_edges), static_cast<unsigned long long>(waiting));
}

std::set<std::pair<uint64_t, uint64_t>> PcPairs(const predictor::RaceResult& r) {
  std::set<std::pair<uint64_t, uint64_t>> out;
  for (const predictor::RacePair& p : r.pairs) out.insert(std::minmax(p.first.pc, p.second.pc));
  return out;
}

// T2's section on m gets its rule (a) edge at line 11, after T3 (through k)
// already read x: the race check at line 10 must wait for it. WCP orders the
// release only before the access at 11, so it reports (1, 10).
TEST(CpEngine, RuleAFoundAfterTheAccessItOrders) {
  auto trace = [](const std::string& line11) {
    TraceBuilder b;
    b.Std({"T1|w(x)|1", "T1|acq(m)|2", "T1|w(y)|3", "T1|rel(m)|4", "T2|acq(m)|5", "T2|acq(k)|6", "T2|rel(k)|7",
           "T3|acq(k)|8", "T3|rel(k)|9", "T3|r(x)|10", line11, "T2|rel(m)|12"});
    return b;
  };
  const TraceBuilder ordered = trace("T2|r(y)|11"), unordered = trace("T2|r(z)|11");
  const CpRun cp = RunCp(ordered.events());
  EXPECT_TRUE(cp.result.pairs.empty());
  EXPECT_EQ(cp.result.racy_events, 0u);
  EXPECT_GT(cp.late_edges, 0u);
  EXPECT_EQ(cp.waiting_races, 1u);
  EXPECT_EQ(PcPairs(RunEngine("wcp", ordered)), (std::set<std::pair<uint64_t, uint64_t>>{{1, 10}}));
  EXPECT_TRUE(RunEngine("hb", ordered).pairs.empty());
  // Without the conflict nothing orders the sections: the waiting check is a race.
  EXPECT_EQ(PcPairs(RunCp(unordered.events()).result), (std::set<std::pair<uint64_t, uint64_t>>{{1, 10}}));
  EXPECT_EQ(RunCp(unordered.events()).result.racy_events, 1u);
}

// The same through rule (b): the sections on l conflict (rule a), so T1's
// acquire of m is CP-before T2's release of m, which orders the sections on m
// only at T2's release (line 14), after T3's read of x.
TEST(CpEngine, RuleBFoundAtALaterRelease) {
  TraceBuilder b;
  b.Std({"T1|w(x)|1", "T1|acq(m)|2", "T1|acq(l)|3", "T1|w(y)|4", "T1|rel(l)|5", "T1|rel(m)|6", "T2|acq(m)|7",
         "T2|acq(k)|8", "T2|rel(k)|9", "T3|acq(k)|10", "T3|rel(k)|11", "T3|r(x)|12", "T2|acq(l)|13", "T2|r(y)|14",
         "T2|rel(l)|15", "T2|rel(m)|16"});
  const CpRun cp = RunCp(b.events());
  EXPECT_TRUE(cp.result.pairs.empty());
  EXPECT_EQ(cp.waiting_races, 1u);
  const CpReference ref = ComputeCpReference(b.events());
  EXPECT_TRUE(ref.race_pairs.empty());
  EXPECT_FALSE(RunEngine("wcp", b).pairs.empty());
}

// A lock held for the whole run (G) lies in the past of every later release:
// a release waits only while an unresolved section acquired after its next
// rule (b) candidate could still tell it about that candidate, so here none
// waits, and each race check of y is settled at once. (Keeping them all
// waiting made each release scan all of them: quadratic.)
TEST(CpEngine, ALongHeldLockKeepsNothingWaiting) {
  auto trace = [](int rounds) {
    std::vector<std::string> lines = {"T0|acq(G)|1"};
    for (int i = 0; i < rounds; ++i) {
      const std::string x = "x" + std::to_string(i % 5);
      for (const std::string& l :
           std::vector<std::string>{"T0|acq(L)|2", "T0|w(" + x + ")|3", "T0|rel(L)|4", "T1|acq(L)|5",
                                    "T1|r(" + x + ")|6", "T1|rel(L)|7", "T1|w(y)|8", "T0|r(y)|9"})
        lines.push_back(l);
    }
    lines.push_back("T0|rel(G)|10");
    TraceBuilder b;
    b.Std(lines);
    return b;
  };
  const TraceBuilder small = trace(25), large = trace(5000);
  const CpReference ref = ComputeCpReference(small.events());
  const CpRun run = RunCp(small.events());
  EXPECT_EQ(run.result.racy_events, ref.racy_events.size());
  EXPECT_GT(run.result.racy_events, 0u);
  const CpRun big = RunCp(large.events());
  EXPECT_EQ(big.waiting_sections, 0u);
  EXPECT_EQ(big.waiting_races, 0u);
  EXPECT_EQ(big.result.racy_events, RunEngine("wcp", large,
                                              [] {
                                                predictor::AnalysisOptions paper;
                                                paper.rapid_compatible = false;
                                                return paper;
                                              }())
                                        .racy_events);
}

}  // namespace
}  // namespace seer::test
