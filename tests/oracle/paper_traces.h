// The papers' worked examples as in-memory traces, shared by the oracle's tests
// and the engines' tests so that each figure is encoded once.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "tests/support/trace_builder.h"

namespace seer::test {

// A trace plus the positions of the figure's numbered events (1-based line -> index).
struct PaperTrace {
  TraceBuilder builder;
  std::map<int, uint64_t> line;  // figure line -> trace position of that line's (first) event
  const std::vector<Event>& events() const { return builder.events(); }
};

// sync(x) of the WCP paper: acq(x) r(xVar) w(xVar) rel(x).
inline void Sync(TraceBuilder& b, const std::string& t, const std::string& name, uint64_t pc) {
  b.Acquire(t, name, pc).Read(t, name + "Var", pc).Write(t, name + "Var", pc).Release(t, name, pc);
}

// STD-like lines plus "sync(x)"; line i of `lines` is figure line i + 1.
inline PaperTrace MakePaperTrace(const std::vector<std::string>& lines) {
  PaperTrace p;
  for (size_t i = 0; i < lines.size(); ++i) {
    const std::string& l = lines[i];
    const uint64_t pc = i + 1;
    p.line[static_cast<int>(pc)] = p.builder.events().size();
    const size_t bar = l.find('|');
    const std::string t = l.substr(0, bar), op = l.substr(bar + 1);
    if (op.rfind("sync(", 0) == 0) {
      Sync(p.builder, t, op.substr(5, op.size() - 6), pc);
    } else if (op == "branch") {
      p.builder.Add(t, EventKind::kBranch, 0, pc);
    } else {
      p.builder.Std({l + "|" + std::to_string(pc)});
    }
  }
  return p;
}

// WCP (Kini et al., PLDI 2017) Figure 1a: critical sections that cannot be swapped; no race.
inline PaperTrace WcpFigure1a() {
  return MakePaperTrace(
      {"T1|acq(l)", "T1|r(x)", "T1|w(x)", "T1|rel(l)", "T2|acq(l)", "T2|r(x)", "T2|w(x)", "T2|rel(l)"});
}
// WCP Figure 1b: the sections can be swapped; race on y between lines 1 and 8.
inline PaperTrace WcpFigure1b() {
  return MakePaperTrace(
      {"T1|w(y)", "T1|acq(l)", "T1|r(x)", "T1|rel(l)", "T2|acq(l)", "T2|r(x)", "T2|rel(l)", "T2|r(y)"});
}
// WCP Figure 5: no predictable race, a predictable deadlock (lines 1, 6, 10 run,
// then lines 2, 7 and 11 block each other).
inline PaperTrace WcpFigure5() {
  return MakePaperTrace({"T1|acq(1)", "T1|acq(m)", "T1|rel(m)", "T1|r(z)", "T1|rel(1)", "T2|acq(m)", "T2|acq(n)",
                         "T2|sync(x)", "T2|rel(n)", "T3|acq(n)", "T3|acq(1)", "T3|rel(1)", "T3|sync(x)", "T3|w(z)",
                         "T3|rel(n)", "T3|sync(y)", "T2|sync(y)", "T2|rel(m)"});
}
// SeqCheck (Cai et al., FSE 2021) Figure 1: e2 rd(y) and e9 wr(y) race once reads
// without a following branch may see another write.
inline PaperTrace SeqCheckFigure1() {
  return MakePaperTrace(
      {"T2|acq(l)", "T2|r(y)", "T2|w(x)", "T2|rel(l)", "T1|acq(l)", "T1|r(x)", "T1|w(x)", "T1|rel(l)", "T1|w(y)"});
}

}  // namespace seer::test
