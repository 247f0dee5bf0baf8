// The SeqCheck paper's worked examples (Cai et al., FSE 2021, Fig. 1 and Fig. 2),
// transcribed event by event, decided by the feasibility core and re-checked by
// the witness checker.
#include "predictor/seqcheck/feasibility.h"

#include <gtest/gtest.h>

#include "predictor/seqcheck/races.h"
#include "predictor/seqcheck/trace_model.h"
#include "predictor/seqcheck/witness_checker.h"
#include "tests/support/trace_builder.h"

namespace seer::predictor::seqcheck {
namespace {

using test::TraceBuilder;

// Fig. 1: t2 runs first. e2 rd(y) and e9 wr(y) race: nothing branches on what
// t1 reads from x, so t1 may run before t2.
//   1 t2 acq(l)  2 t2 rd(y)  3 t2 wr(x)  4 t2 rel(l)
//   5 t1 acq(l)  6 t1 rd(x)  7 t1 wr(x)  8 t1 rel(l)  9 t1 wr(y)
// Every thread starts with a branch (the paper's empty start branch), which
// also marks the trace as one with branch events. Returns the index of e_k.
std::vector<Event> Figure1(bool with_branches, std::vector<uint64_t>* e) {
  TraceBuilder b;
  b.Thread("t1");
  b.Thread("t2");
  if (with_branches) {
    b.Add("t2", EventKind::kBranch, 0, 100);
    b.Add("t1", EventKind::kBranch, 0, 101);
  }
  e->assign(10, 0);
  auto at = [&](int k) { (*e)[k] = b.events().size(); };
  at(1);
  b.Acquire("t2", "l", 1);
  at(2);
  b.Read("t2", "y", 2);
  at(3);
  b.Write("t2", "x", 3);
  at(4);
  b.Release("t2", "l", 4);
  at(5);
  b.Acquire("t1", "l", 5);
  at(6);
  b.Read("t1", "x", 6);
  at(7);
  b.Write("t1", "x", 7);
  at(8);
  b.Release("t1", "l", 8);
  at(9);
  b.Write("t1", "y", 9);
  return b.events();
}

TEST(SeqCheckPaper, Figure1RaceIsFeasibleWithBranches) {
  std::vector<uint64_t> e;
  TraceModel m(Figure1(true, &e));
  FeasibilityChecker f(m);
  SeqCheckStats stats;
  RaceConfirmation c = ConfirmRace(m, &f, static_cast<uint32_t>(e[2]), static_cast<uint32_t>(e[9]), &stats);
  ASSERT_TRUE(c.confirmed);
  EXPECT_TRUE(c.witness.validated);
  EXPECT_EQ(stats.invalid_witnesses, 0u);
  // The witness runs t1's critical section before t2's.
  const std::vector<uint64_t> schedule = c.witness.schedule.Positions();
  auto pos = [&](uint64_t idx) { return std::find(schedule.begin(), schedule.end(), idx); };
  EXPECT_NE(pos(e[8]), schedule.end());
  EXPECT_EQ(pos(e[2]), schedule.end());  // enabled, not run
  EXPECT_EQ(pos(e[9]), schedule.end());
}

TEST(SeqCheckPaper, Figure1RaceIsNotFeasibleWhenEveryReadBranches) {
  // Without branch events every read is taken to be followed by a branch (the
  // M2 model): e6 must read e3, which comes after e2, so the two never meet.
  std::vector<uint64_t> e;
  TraceModel m(Figure1(false, &e));
  FeasibilityChecker f(m);
  SeqCheckStats stats;
  EXPECT_FALSE(ConfirmRace(m, &f, static_cast<uint32_t>(e[2]), static_cast<uint32_t>(e[9]), &stats).confirmed);
}

// Fig. 2: trace delta of three threads; rho = <e6, e18, e12> is feasible.
std::vector<Event> Figure2(std::vector<uint64_t>* e) {
  TraceBuilder b;
  for (const char* t : {"t1", "t2", "t3"}) b.Add(t, EventKind::kBranch, 0, 100);  // start branches
  e->assign(23, 0);
  struct Row {
    const char* t;
    const char* op;
    const char* arg;
  };
  const Row rows[23] = {{},
                        {"t2", "acq", "l2"},
                        {"t2", "wr", "x"},
                        {"t2", "rel", "l2"},
                        {"t3", "wr", "y"},
                        {"t3", "acq", "l2"},
                        {"t3", "wr", "p"},
                        {"t3", "wr", "x"},
                        {"t3", "rel", "l2"},
                        {"t1", "acq", "l1"},
                        {"t1", "rd", "x"},
                        {"t1", "br", ""},
                        {"t1", "wr", "p"},
                        {"t1", "wr", "y"},
                        {"t1", "rel", "l1"},
                        {"t2", "acq", "l1"},
                        {"t2", "rd", "x"},
                        {"t2", "br", ""},
                        {"t2", "rd", "p"},
                        {"t2", "acq", "l2"},
                        {"t2", "rd", "y"},
                        {"t2", "rel", "l2"},
                        {"t2", "rel", "l1"}};
  for (int k = 1; k <= 22; ++k) {
    (*e)[k] = b.events().size();
    const Row& r = rows[k];
    const std::string op = r.op;
    if (op == "acq")
      b.Acquire(r.t, r.arg, k);
    else if (op == "rel")
      b.Release(r.t, r.arg, k);
    else if (op == "rd")
      b.Read(r.t, r.arg, k);
    else if (op == "wr")
      b.Write(r.t, r.arg, k);
    else
      b.Add(r.t, EventKind::kBranch, 0, k);
  }
  return b.events();
}

TEST(SeqCheckPaper, Figure2SequenceIsFeasible) {
  std::vector<uint64_t> e;
  std::vector<Event> trace = Figure2(&e);
  TraceModel m(trace);
  FeasibilityChecker f(m);
  const uint32_t e6 = static_cast<uint32_t>(e[6]), e12 = static_cast<uint32_t>(e[12]),
                 e18 = static_cast<uint32_t>(e[18]);
  Query q;
  q.threads = {{m.node(e6).tid, m.node(e6).pos + 1},
               {m.node(e18).tid, m.node(e18).pos + 1},
               {m.node(e12).tid, m.node(e12).pos + 1}};
  q.order = {{e6, e18}, {e18, e12}};
  FeasibilityResult r = f.Check(q);
  ASSERT_TRUE(r.feasible) << r.reason;
  std::vector<uint64_t> schedule;
  for (uint32_t n = 0; n < r.prefix; ++n) schedule.push_back(m.event(n).index);
  for (uint32_t n : r.schedule) schedule.push_back(m.event(n).index);
  WitnessChecker checker(trace);
  EXPECT_TRUE(checker.CheckFeasible(schedule).ok()) << checker.CheckFeasible(schedule).ToString();
  auto at = [&](uint64_t idx) { return std::find(schedule.begin(), schedule.end(), idx) - schedule.begin(); };
  EXPECT_LT(at(e[6]), at(e[18]));
  EXPECT_LT(at(e[18]), at(e[12]));
  // The paper's closure: t2's section on l1 (e15..e22) runs before e9, and
  // t3 releases l2 (e8) before e19.
  EXPECT_LT(at(e[22]), at(e[9]));
  EXPECT_LT(at(e[8]), at(e[19]));
  // Without prefix reduction the answer is the same.
  FeasibilityOptions full;
  full.prefix_reduction = false;
  FeasibilityChecker g(m, full);
  EXPECT_TRUE(g.Check(q).feasible);
}

TEST(SeqCheckPaper, Figure2ReverseOfObservedOrderIsInfeasible) {
  // e12 before e6 and then e10 before e7 is impossible: e10 rd(x) is followed
  // by a branch, so it must still read e7, which runs after e6.
  std::vector<uint64_t> e;
  TraceModel m(Figure2(&e));
  FeasibilityChecker f(m);
  const uint32_t e10 = static_cast<uint32_t>(e[10]), e5 = static_cast<uint32_t>(e[5]);
  Query q;
  q.threads = {{m.node(e10).tid, m.node(e10).pos + 2}, {m.node(e5).tid, m.node(e5).pos + 1}};
  q.order = {{e10, e5}};
  EXPECT_FALSE(f.Check(q).feasible);
}

}  // namespace
}  // namespace seer::predictor::seqcheck
