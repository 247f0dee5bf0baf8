// The text report: a header that says what was analysed (and whether events were
// lost, which limits every verdict), then one section per race engine, the
// deadlocks and the atomicity violations.
#include <fmt/format.h>

#include "predictor/report/report.h"

namespace seer {
namespace {

std::string Describe(const ReportNames& names, const EventRef& e) {
  return fmt::format("{} {} at location {} (event {})", names.Thread(e.tid), EventKindName(e.kind), e.pc, e.index);
}

// --confirm-races: what SeqCheck said about the pair, if it was asked.
std::string ConfirmationNote(const RacePair& p) {
  if (!p.confirmed) return "";
  return *p.confirmed ? " (confirmed by SeqCheck)" : " (not confirmed by SeqCheck)";
}

std::string WitnessNote(const Witness& w) {
  if (w.schedule.empty() && !w.validated) return "the recorded run itself";  // atomic-blocks
  return fmt::format("{} schedule of {} events", w.validated ? "validated" : "UNVALIDATED", w.schedule.size());
}

}  // namespace

std::string TextReport(const TraceReader& trace, const Findings& findings, const std::vector<std::string>& analyses) {
  const TraceInfo& info = trace.info();
  const ReportNames names(trace);
  std::string out;
  out += fmt::format("trace: {} ({} events, {} threads{})\n", info.path, info.counters.events,
                     info.counters.distinct_threads, info.complete ? "" : ", not closed cleanly");
  out += fmt::format("lost events: {}\n", LostSummary(info.counters));
  std::string list;
  for (const std::string& a : analyses) list += (list.empty() ? "" : ", ") + a;
  out += fmt::format("analyses: {}\n", list.empty() ? "none" : list);

  for (const RaceResult& r : findings.races) {
    out += fmt::format("\n{}: {} race pairs, {} racy events, {} racy locations\n", r.engine, r.pairs.size(),
                       r.racy_events, r.racy_locations);
    out += fmt::format("  guarantee: {}: {}\n", GuaranteeName(r.guarantee), GuaranteeDescription(r.guarantee));
    for (const RacePair& p : r.pairs) {
      out += fmt::format("  race on {}: {} and {}", names.Object(p.first.kind, p.first.object),
                         Describe(names, p.first), Describe(names, p.second));
      if (p.occurrences > 1) out += fmt::format(", {} times", p.occurrences);
      out += ConfirmationNote(p) + "\n";
    }
  }

  out += fmt::format("\ndeadlocks: {}\n", findings.deadlocks.size());
  for (const Deadlock& d : findings.deadlocks) {
    std::string locks;
    for (const DeadlockThread& t : d.cycle)
      locks += (locks.empty() ? "" : ", ") + names.Object(EventKind::kAcquire, t.held_lock);
    out += fmt::format("  {} ({}) on locks {}; witness: {}:\n", d.engine, GuaranteeName(d.guarantee), locks,
                       WitnessNote(d.witness));
    for (const DeadlockThread& t : d.cycle) {
      out += fmt::format("    {} holds {} (acquired at location {}, event {}) and wants {} (location {}, event {})\n",
                         names.Thread(t.tid), names.Object(EventKind::kAcquire, t.held_lock), t.held_acquire.pc,
                         t.held_acquire.index, names.Object(EventKind::kAcquire, t.wanted_lock),
                         t.blocked_acquire.pc, t.blocked_acquire.index);
    }
  }

  out += fmt::format("\natomicity violations: {}\n", findings.atomicity.size());
  for (const AtomicityViolation& a : findings.atomicity) {
    out += fmt::format("  {} {} on {}: {}; then {}; then {} (witness: {})\n", a.engine, a.pattern,
                       names.Object(a.local_first.kind, a.local_first.object), Describe(names, a.local_first),
                       Describe(names, a.remote), Describe(names, a.local_second), WitnessNote(a.witness));
  }
  return out;
}

}  // namespace seer
