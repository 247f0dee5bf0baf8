// The text report: a header that says what was analysed (and whether events were
// lost, which limits every verdict), one summary section per race engine and a
// line that counts the findings. Then the findings, proven first: the race pairs
// something proves, the deadlocks and the atomicity violations (each section
// only when its analysis ran, so that 0 means "ran and found none"; their
// witnesses prove them), then the race pairs only predicted and the lock-order
// inversions that are not a reported deadlock. Pairs that only a
// heuristic engine (lockset) reports are one line unless asked for: most are
// false, and a user reading the report first must meet the real bugs. For
// recorded traces each race pair is shown once, in the shape of a
// ThreadSanitizer report, with the engines that predict it and what proves it.
#include <fmt/format.h>

#include <filesystem>
#include <map>
#include <set>
#include <tuple>

#include "predictor/report/details.h"
#include "predictor/report/race_groups.h"
#include "predictor/report/report.h"

namespace seer::predictor {
namespace {

std::string Describe(const ReportNames& names, ReportDetails* details, const EventRef& e) {
  return fmt::format("{} {} at {} (event {})", names.Thread(e.tid), EventKindName(e.kind), EventSite(names, details, e),
                     e.index);
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

std::string AccessName(EventKind kind, const VariableInfo& v) {
  if (kind == EventKind::kAlloc && v.kind == "fd") return "Creation";  // a descriptor's creation accesses it
  switch (kind) {
    case EventKind::kRead: return "Read";
    case EventKind::kWrite: return "Write";
    case EventKind::kAtomicLoad: return "Atomic read";
    case EventKind::kAtomicStore: return "Atomic write";
    case EventKind::kAtomicRmw: return "Atomic read-modify-write";
    case EventKind::kWatchHit: return "Read or write";  // a read-write watchpoint's hit, the value unchanged
    case EventKind::kAlloc: return "Allocation";        // a heap block is written by its allocation
    case EventKind::kFree: return "Free";               // and by its free
    default: return std::string(EventKindName(kind));
  }
}

std::string Lower(std::string s) {
  if (!s.empty() && s[0] >= 'A' && s[0] <= 'Z') s[0] = static_cast<char>(s[0] - 'A' + 'a');
  return s;
}

std::string ModuleOffset(const Frame& f) {
  if (f.module.empty()) return fmt::format("{:#x}", f.pc);
  return fmt::format("{}+{:#x}", std::filesystem::path(f.module).filename().string(), f.offset);
}

// "    #0 worker racy.c:9:5 (racy+0x11a9)" per frame.
std::string FramesText(const std::vector<Frame>& frames, const std::string& indent) {
  std::string out;
  for (size_t i = 0; i < frames.size(); ++i) {
    const Frame& f = frames[i];
    std::string where;
    if (!f.file.empty()) {
      where = " " + f.file;
      if (f.line) where += fmt::format(":{}", f.line);
      if (f.line && f.column) where += fmt::format(":{}", f.column);
    }
    out += fmt::format("{}#{} {}{} ({}){}\n", indent, i, f.function.empty() ? "<unknown>" : f.function, where,
                       ModuleOffset(f), f.inlined ? " [inlined]" : "");
  }
  return out;
}

// "0x55d0c4a4b040 'accounts+0x28'": the address, and the global it is in.
std::string AddressText(ReportDetails& details, uint64_t address) {
  const std::string name = GlobalName(details, address);
  return fmt::format("{:#x}", address) + (name.empty() ? "" : " '" + name + "'");
}

std::string LockText(ReportDetails& details, const HeldLock& l) {
  return AddressText(details, l.lock) + (l.shared ? " (read)" : "");
}

std::string LocksText(ReportDetails& details, const EventRef& e) {
  const EventContext* c = details.context.At(e.index);
  if (c == nullptr) return "unknown";
  if (c->locks.empty()) return "none";
  std::string out;
  for (const HeldLock& l : c->locks) out += (out.empty() ? "" : ", ") + LockText(details, l);
  return out;
}

// "Location is global 'g_requests' of size 8 at ...": what `v`, the variable of
// `access`, is, as ThreadSanitizer says it (a heap block with its allocation stack).
std::string LocationText(const ReportNames& names, ReportDetails& details, const EventRef& access,
                         const VariableInfo& v, const std::string& indent) {
  std::string out;
  if (v.kind == "global") {
    out +=
        indent + fmt::format("Location is global '{}' of size {} at {:#x} ({}+{:#x}){}\n", v.name, v.size, v.address,
                             std::filesystem::path(v.global.module).filename().string(), v.global.offset,
                             access.object == v.address ? "" : fmt::format(", {} bytes in", access.object - v.address));
  } else if (v.kind == "heap") {
    out += indent + fmt::format("Location is heap block of size {} at {:#x} allocated by thread {} (event {}):\n",
                                v.size, v.address, names.Thread(v.block->tid), v.block->alloc_index);
    out += FramesText(StackFrames(details, v.block->stack), indent + "  ");
  } else if (v.kind == "stack") {
    out += indent + fmt::format("Location is stack of thread {} (block of size {} at {:#x}, {} bytes in)\n",
                                names.Thread(v.block->tid), v.size, v.address, access.object - v.address);
  } else if (v.kind == "fd") {
    const bool reset = v.block->region == AllocRegion::kFileDescriptorReset;
    out += indent + fmt::format(
                        "Location is file descriptor {} (the descriptor itself: its I/O calls and dup2 read it, "
                        "its creation and close write it), {} by thread {} (event {}):\n",
                        v.name, reset ? "closed" : "created", names.Thread(v.block->tid), v.block->alloc_index);
    out += FramesText(StackFrames(details, v.block->stack), indent + "  ");
  } else if (v.kind == "tls" && !v.name.empty()) {
    out +=
        indent + fmt::format("Location is TLS variable '{}' of size {} at {:#x} of thread {} ({}){}\n", v.name, v.size,
                             v.address, names.Thread(v.block->tid),
                             std::filesystem::path(v.global.module).filename().string(),
                             access.object == v.address ? "" : fmt::format(", {} bytes in", access.object - v.address));
  } else if (v.kind == "tls") {
    out += indent + fmt::format("Location is TLS of thread {} (block of size {} at {:#x}, {} bytes in)\n",
                                names.Thread(v.block->tid), v.size, v.address, access.object - v.address);
  } else {
    out += indent + fmt::format("Location is {:#x} (not a global nor a live heap, stack or TLS block: unrecorded)\n",
                                access.object);
  }
  return out;
}

std::string RaceEntry(const ReportNames& names, ReportDetails& details, const RaceGroup& g) {
  const RacePair& p = *g.pair;
  std::string engines;
  for (const RaceResult* r : g.engines)
    engines += fmt::format("{}{} ({})", engines.empty() ? "" : ", ", r->engine, GuaranteeName(r->guarantee));
  const bool caught = g.proof == RaceProof::kCaught && g.engines.size() == 1;
  std::string out = caught ? fmt::format("WARNING: data race (caught by watch in the recorded run)\n")
                           : fmt::format("WARNING: data race (predicted by {}){}\n", engines, ConfirmationNote(p));
  out += "  " + ProofText(g) + "\n";
  const VariableInfo v = DescribeVariable(details, p.first);
  // Like ThreadSanitizer: the later access first, then the earlier one.
  if (p.second.tid == kThreadNotSeen) {
    out += fmt::format(
        "  Write of size {} at {:#x} by a thread not seen (event {}): the value changed while thread {} was held "
        "at the access below\n",
        ShownSize(p.second, v), p.second.object, p.second.index, names.Thread(p.first.tid));
  } else {
    out += fmt::format("  {} of size {} at {:#x} by thread {} (event {}):\n", AccessName(p.second.kind, v),
                       ShownSize(p.second, v), p.second.object, names.Thread(p.second.tid), p.second.index);
    out += FramesText(EventFrames(details, p.second), "    ");
  }
  out += fmt::format("  Previous {} of size {} at {:#x} by thread {} (event {}):\n", Lower(AccessName(p.first.kind, v)),
                     ShownSize(p.first, v), p.first.object, names.Thread(p.first.tid), p.first.index);
  out += FramesText(EventFrames(details, p.first), "    ");
  if (p.second.tid == kThreadNotSeen)
    out += fmt::format("  Locks held: {}: {}\n", names.Thread(p.first.tid), LocksText(details, p.first));
  else
    out += fmt::format("  Locks held: {}: {}; {}: {}\n", names.Thread(p.second.tid), LocksText(details, p.second),
                       names.Thread(p.first.tid), LocksText(details, p.first));
  out += LocationText(names, details, p.first, v, "  ");
  if (p.occurrences > 1) out += fmt::format("  Seen {} times by {}\n", p.occurrences, g.engines.front()->engine);
  return out;
}

// The stack of an event of a deadlock or atomicity violation, under its line.
std::string EventStack(ReportDetails* details, const EventRef& e, const std::string& indent) {
  return details == nullptr ? "" : FramesText(EventFrames(*details, e), indent);
}

bool Ran(const std::vector<std::string>& analyses, const char* name) {
  for (const std::string& a : analyses)
    if (a == name) return true;
  return false;
}

// A pair only heuristic engines (lockset) report, with nothing else behind it.
bool HeuristicOnly(const RaceGroup& g) {
  if (g.proof != RaceProof::kPredicted) return false;
  for (const RaceResult* r : g.engines)
    if (r->guarantee != Guarantee::kHeuristic) return false;
  return true;
}

// A witness that replays (or the recorded run itself, for atomic-blocks) proves a
// deadlock or an atomicity violation; an unvalidated one is seer's own bug.
bool Proven(const Witness& w) { return w.validated || w.schedule.empty(); }

// "1 data race, 2 deadlocks": the non-zero counts, "" when all are zero.
std::string Counts(const std::vector<std::pair<size_t, const char*>>& counts) {
  std::string out;
  for (const auto& [n, what] : counts) {
    if (n == 0) continue;
    out += fmt::format("{}{} {}{}", out.empty() ? "" : ", ", n, what, n == 1 ? "" : "s");
  }
  return out;
}

// Atomicity violations at the same code locations (pattern and the three pcs),
// shown once with their count: a loop or a request handler repeats one bug on
// many variables and many times.
std::vector<std::vector<const AtomicityViolation*>> GroupAtomicity(const std::vector<AtomicityViolation>& all) {
  std::vector<std::vector<const AtomicityViolation*>> groups;
  std::map<std::tuple<std::string, std::string, uint64_t, uint64_t, uint64_t>, size_t> by_key;
  for (const AtomicityViolation& a : all) {
    auto [it, fresh] = by_key.emplace(
        std::make_tuple(a.engine, a.pattern, a.local_first.pc, a.remote.pc, a.local_second.pc), groups.size());
    if (fresh) groups.emplace_back();
    groups[it->second].push_back(&a);
  }
  return groups;
}

}  // namespace

std::string TextReport(const TraceReader& trace, const Findings& findings, const std::vector<std::string>& analyses,
                       ReportDetails* details, const ReportOptions& options) {
  const TraceInfo& info = trace.info();
  const ReportNames names(trace);
  // Detailed entries need a module map: imported and generated traces have none.
  if (info.modules.empty()) details = nullptr;
  std::string out;
  out += fmt::format("trace: {} ({} events, {} threads{})\n", info.path, info.counters.events,
                     info.counters.distinct_threads, info.complete ? "" : ", not closed cleanly");
  out += fmt::format("lost events: {}\n", LostSummary(info.counters));
  std::string list;
  for (const std::string& a : analyses) list += (list.empty() ? "" : ", ") + a;
  out += fmt::format("analyses: {}\n", list.empty() ? "none" : list);

  // What the report holds, counted before anything is written.
  const RaceIndex races(findings);
  size_t proven_races = 0, predicted_races = 0, heuristic_races = 0;
  for (const RaceGroup& g : races.groups()) {
    if (HeuristicOnly(g))
      ++heuristic_races;
    else if (g.proof == RaceProof::kPredicted)
      ++predicted_races;
    else
      ++proven_races;
  }
  size_t proven_deadlocks = 0, proven_atomicity = 0;
  for (const Deadlock& d : findings.deadlocks) proven_deadlocks += Proven(d.witness);
  for (const AtomicityViolation& a : findings.atomicity) proven_atomicity += Proven(a.witness);
  // An inversion on the locks of a reported deadlock is that deadlock.
  std::set<std::set<uint64_t>> deadlock_locks;
  for (const Deadlock& d : findings.deadlocks) {
    std::set<uint64_t> locks;
    for (const DeadlockThread& t : d.cycle) locks.insert(t.held_lock);
    deadlock_locks.insert(locks);
  }
  auto is_a_deadlock = [&](const LockOrderInversion& inv) {
    std::set<uint64_t> locks;
    for (const DeadlockThread& t : inv.cycle) locks.insert(t.held_lock);
    return deadlock_locks.count(locks) != 0;
  };
  size_t inversions_of_deadlocks = 0;
  for (const LockOrderInversion& inv : findings.lock_order) inversions_of_deadlocks += is_a_deadlock(inv);
  const size_t inversions = findings.lock_order.size() - inversions_of_deadlocks;
  const bool list_heuristic = options.list_heuristic;
  std::string heuristic_names;  // "lockset"
  for (const RaceResult& r : findings.races)
    if (r.guarantee == Guarantee::kHeuristic) heuristic_names += (heuristic_names.empty() ? "" : "/") + r.engine;
  auto listed = [&](const RaceGroup& g) { return list_heuristic || !HeuristicOnly(g); };

  // Symbolise first, so that the warnings about modules can head the report.
  std::string proven_entries, predicted_entries;
  if (details != nullptr) {
    for (const RaceGroup& g : races.groups()) {
      if (!listed(g)) continue;
      (g.proof == RaceProof::kPredicted ? predicted_entries : proven_entries) += "\n" + RaceEntry(names, *details, g);
    }
  }

  std::string body;
  for (const RaceResult& r : findings.races) {
    body += fmt::format("\n{}: {} race pairs, {} racy events, {} racy locations\n", r.engine, r.pairs.size(),
                        r.racy_events, r.racy_locations);
    body += fmt::format("  guarantee: {}: {}\n", GuaranteeName(r.guarantee), GuaranteeDescription(r.guarantee));
    if (details != nullptr) continue;
    size_t unlisted = 0;
    for (const RacePair* p : races.ProvenFirst(r)) {
      if (!listed(races.Of(*p))) {
        ++unlisted;
        continue;
      }
      body += fmt::format("  race on {}: {} and {}", names.Object(p->first.kind, p->first.object),
                          Describe(names, details, p->first), Describe(names, details, p->second));
      if (p->occurrences > 1) body += fmt::format(", {} times", p->occurrences);
      body += ConfirmationNote(*p) + "\n";
      body += "    " + ProofText(races.Of(*p)) + "\n";
    }
    if (unlisted != 0)
      body += fmt::format("  {} pair{} only heuristic engines report: not listed (--lockset-warnings)\n", unlisted,
                          unlisted == 1 ? "" : "s");
  }

  // One line to read first: what is proven, what is only predicted, what is not listed.
  const std::string proven =
      Counts({{proven_races, "data race"}, {proven_deadlocks, "deadlock"}, {proven_atomicity, "atomicity violation"}});
  const std::string predicted =
      Counts({{predicted_races, "data race"},
              {findings.deadlocks.size() - proven_deadlocks, "deadlock (witness not validated)"},
              {findings.atomicity.size() - proven_atomicity, "atomicity violation (witness not validated)"}});
  std::string summary;
  if (!proven.empty()) summary += "proven: " + proven;
  if (!predicted.empty()) summary += std::string(summary.empty() ? "" : "; ") + "predicted only: " + predicted;
  if (inversions != 0)
    summary +=
        fmt::format("{}{} lock-order inversion{}", summary.empty() ? "" : "; ", inversions, inversions == 1 ? "" : "s");
  if (heuristic_races != 0)
    summary += fmt::format("{}{} {}-only warning{}{}", summary.empty() ? "" : "; ", heuristic_races, heuristic_names,
                           heuristic_races == 1 ? "" : "s", list_heuristic ? "" : " not listed (--lockset-warnings)");
  body += fmt::format("\nfindings: {}\n", summary.empty() ? "none" : summary);

  body += proven_entries;

  // Sections of analyses that did not run are left out: "deadlocks: 0" must
  // mean that the deadlock analysis ran and found none.
  if (Ran(analyses, "deadlock") || !findings.deadlocks.empty())
    body += fmt::format("\ndeadlocks: {}\n", findings.deadlocks.size());
  // A recorded lock is an address: its global's name says which one.
  auto lock_text = [&](uint64_t lock) {
    return details != nullptr ? AddressText(*details, lock) : names.Object(EventKind::kAcquire, lock);
  };
  auto cycle_locks = [&](const std::vector<DeadlockThread>& cycle) {
    std::string locks;
    for (const DeadlockThread& t : cycle) locks += (locks.empty() ? "" : ", ") + lock_text(t.held_lock);
    return locks;
  };
  // "thread-4 holds A (acquired at ...) and wants B (at ...)", with both stacks.
  auto cycle_steps = [&](const std::vector<DeadlockThread>& cycle) {
    std::string out;
    for (const DeadlockThread& t : cycle) {
      out += fmt::format("    {} holds {} (acquired at {}, event {}) and wants {} (at {}, event {})\n",
                         names.Thread(t.tid), lock_text(t.held_lock), EventSite(names, details, t.held_acquire),
                         t.held_acquire.index, lock_text(t.wanted_lock), EventSite(names, details, t.blocked_acquire),
                         t.blocked_acquire.index);
      if (details != nullptr) {
        out += fmt::format("      {} acquired:\n", AddressText(*details, t.held_lock));
        out += EventStack(details, t.held_acquire, "        ");
        out += fmt::format("      {} wanted:\n", AddressText(*details, t.wanted_lock));
        out += EventStack(details, t.blocked_acquire, "        ");
      }
    }
    return out;
  };
  for (const Deadlock& d : findings.deadlocks) {
    body += fmt::format("  {} ({}) on locks {}; witness: {}:\n", d.engine, GuaranteeName(d.guarantee),
                        cycle_locks(d.cycle), WitnessNote(d.witness));
    body += cycle_steps(d.cycle);
  }

  const auto atomicity_groups = GroupAtomicity(findings.atomicity);
  if (Ran(analyses, "atomicity") || Ran(analyses, "atomic-blocks") || !findings.atomicity.empty()) {
    body += fmt::format("\natomicity violations: {}", findings.atomicity.size());
    if (atomicity_groups.size() != findings.atomicity.size())
      body += fmt::format(" (at {} code location{})", atomicity_groups.size(), atomicity_groups.size() == 1 ? "" : "s");
    body += "\n";
    // Not findings, one line: what only a steered run can show.
    if (const size_t n = findings.atomicity_candidates.size(); n != 0)
      body += fmt::format(
          "  {} more candidate{} no reordering of this run realises (listed in --format json): seer fuzz can try "
          "{}\n",
          n, n == 1 ? "" : "s", n == 1 ? "it" : "them");
  }
  for (const auto& group : atomicity_groups) {
    const AtomicityViolation& a = *group.front();
    body += fmt::format("  {} {} on {}: {}; then {}; then {} (witness: {})\n", a.engine, a.pattern,
                        names.Object(a.local_first.kind, a.local_first.object), Describe(names, details, a.local_first),
                        Describe(names, details, a.remote), Describe(names, details, a.local_second),
                        WitnessNote(a.witness));
    if (details != nullptr) {
      for (const EventRef* e : {&a.local_first, &a.remote, &a.local_second}) {
        body += fmt::format("    {} {} (event {}):\n", names.Thread(e->tid), EventKindName(e->kind), e->index);
        body += EventStack(details, *e, "      ");
      }
      body += LocationText(names, *details, a.local_first, DescribeVariable(*details, a.local_first), "    ");
    }
    if (group.size() > 1) {
      std::set<uint64_t> variables;
      for (const AtomicityViolation* v : group) variables.insert(v->local_first.object);
      body += fmt::format("    Seen {} times at these code locations, on {} variable{}\n", group.size(),
                          variables.size(), variables.size() == 1 ? "" : "s");
    }
  }

  body += predicted_entries;

  // Lock-order inversions after what is predicted: a discipline warning. One
  // whose locks are a reported deadlock's is that deadlock, shown above.
  if (Ran(analyses, "lock-order") || !findings.lock_order.empty()) {
    body += fmt::format("\nlock-order inversions: {}", findings.lock_order.size());
    if (inversions_of_deadlocks != 0)
      body += fmt::format(" ({} the deadlock{} above)", inversions_of_deadlocks == 1 ? "is" : "are",
                          inversions_of_deadlocks == 1 ? "" : "s");
    body += "\n";
  }
  for (const LockOrderInversion& inv : findings.lock_order) {
    if (is_a_deadlock(inv)) continue;
    body += fmt::format(
        "  lock-order inversion on locks {} ({}; not a deadlock of this run's threads, but "
        "threads running these paths at once can deadlock):\n",
        cycle_locks(inv.cycle), inv.engine);
    body += cycle_steps(inv.cycle);
  }
  if (heuristic_races != 0 && !list_heuristic && details != nullptr)
    body += fmt::format(
        "\n{}-only warnings: {} race pair{} that only the {} heuristic reports (it reports false races): "
        "not listed; --lockset-warnings lists them\n",
        heuristic_names, heuristic_races, heuristic_races == 1 ? "" : "s", heuristic_names);

  if (!findings.stats.empty()) body += "\nanalysis work:\n";
  for (const AnalysisStats& st : findings.stats) {
    std::string counters;
    for (const auto& [name, value] : st.counters)
      counters +=
          fmt::format("{}{} {}", counters.empty() ? "" : ", ", name,
                      value == static_cast<double>(static_cast<uint64_t>(value)) ? fmt::format("{:.0f}", value)
                                                                                 : fmt::format("{:.3f}", value));
    body += fmt::format("  {}: {}\n", st.analysis, counters);
  }
  if (details != nullptr)
    for (const std::string& w : details->symbolizer->warnings()) out += "seer: warning: " + w + "\n";
  return out + body;
}

}  // namespace seer::predictor
