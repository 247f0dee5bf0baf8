// The JSON report. Its schema is a contract with tools (docs/cli.md): add keys,
// never rename or remove them.
#include <vector>

#include <nlohmann/json.hpp>

#include "predictor/report/details.h"
#include "predictor/report/json_util.h"
#include "predictor/report/race_groups.h"
#include "predictor/report/report.h"
#include "predictor/report/schedule_events.h"

namespace seer::predictor {
namespace {

using nlohmann::json;

json StringOrNull(const std::string& s) { return s.empty() ? json(nullptr) : json(s); }

json FramesJson(const std::vector<Frame>& frames) {
  json out = json::array();
  for (const Frame& f : frames) {
    out.push_back({{"pc", f.pc},
                   {"module", StringOrNull(f.module)},
                   {"offset", f.offset},
                   {"function", StringOrNull(f.function)},
                   {"file", StringOrNull(f.file)},
                   {"line", f.line ? json(f.line) : json(nullptr)},
                   {"column", f.column ? json(f.column) : json(nullptr)},
                   {"inlined", f.inlined}});
  }
  return out;
}

json EventJson(const ReportNames& names, const EventRef& e, ReportDetails* details) {
  json j = {{"index", e.index},
            {"thread", e.tid},
            {"thread_name", names.Thread(e.tid)},
            {"kind", std::string(EventKindName(e.kind))},
            {"location", e.pc},
            {"object", e.object},
            {"size", e.size}};
  std::string name = names.ObjectName(e.kind, e.object);
  if (!name.empty()) j["object_name"] = name;
  // Source details: the innermost frame's, null when unknown (no module map).
  j["file"] = j["line"] = j["function"] = nullptr;
  j["stack"] = json::array();
  j["locks_held"] = nullptr;
  if (e.tid == kThreadNotSeen) j["thread"] = nullptr;  // a caught race's unseen writer (thread_name "not seen")
  if (details == nullptr || e.tid == kThreadNotSeen) return j;
  const std::vector<Frame> frames = EventFrames(*details, e);
  if (!frames.empty()) {
    j["file"] = StringOrNull(frames[0].file);
    j["line"] = frames[0].line ? json(frames[0].line) : json(nullptr);
    j["function"] = StringOrNull(frames[0].function);
  }
  j["stack"] = FramesJson(frames);
  if (const EventContext* c = details->context.At(e.index)) {
    json locks = json::array();
    for (const HeldLock& l : c->locks) {
      locks.push_back({{"lock", l.lock}, {"name", StringOrNull(GlobalName(*details, l.lock))}, {"shared", l.shared}});
    }
    j["locks_held"] = locks;
  }
  return j;
}

json WitnessJson(const Witness& w) {
  return {{"validated", w.validated}, {"length", w.schedule.size()}, {"schedule_tail", ScheduleTail(w)}};
}

// An event of a deadlock or atomicity violation, with its part in the finding.
json WithRole(json event, const char* role) {
  event["role"] = role;
  return event;
}

// `described`: the variable of `access` as DescribeVariable found it (unused without details).
json VariableJson(ReportDetails* details, const EventRef& access, const VariableInfo* described) {
  if (details == nullptr)
    return {{"kind", "unknown"},
            {"name", nullptr},
            {"address", access.object},
            {"size", access.size},
            {"alloc_stack", nullptr}};
  const VariableInfo& v = *described;
  json j = {{"kind", v.kind},
            {"name", StringOrNull(v.name)},
            {"address", v.address},
            {"size", v.size},
            {"alloc_stack", nullptr}};
  if (v.kind == "global") {
    j["module"] = v.global.module;
    j["offset"] = v.global.offset;
  }
  if (v.kind == "tls" && !v.name.empty()) j["module"] = v.global.module;
  if (v.block != nullptr) {
    // A stack or TLS block is allocated by the runtime as its thread starts:
    // no program stack to show, and its thread is the owner.
    if (v.kind == "heap" || v.kind == "fd") j["alloc_stack"] = FramesJson(StackFrames(*details, v.block->stack));
    if (v.kind != "heap" && v.kind != "fd") j["thread"] = v.block->tid;
    j["alloc_thread"] = v.block->tid;
    j["alloc_index"] = v.block->alloc_index;
  }
  return j;
}

}  // namespace

std::string JsonReport(const TraceReader& trace, const Findings& findings, const std::vector<std::string>& analyses,
                       ReportDetails* details) {
  const TraceInfo& info = trace.info();
  const ReportNames names(trace);
  if (info.modules.empty()) details = nullptr;  // no module map: nothing to symbolise
  auto event = [&](const EventRef& e) { return EventJson(names, e, details); };
  json out;
  out["trace"] = {{"path", info.path},
                  {"format_version", info.format_version},
                  {"source", info.Meta(meta::kSource)},
                  {"events", info.counters.events},
                  {"threads", info.counters.distinct_threads},
                  {"lost_events", info.counters.TotalLost()},
                  {"lost", LostJson(info.counters)},
                  {"complete", info.complete}};
  out["analyses"] = analyses;

  const RaceIndex groups(findings);
  json races = json::object();
  for (const RaceResult& r : findings.races) {
    json pairs = json::array();
    for (const RacePair* pp : groups.ProvenFirst(r)) {
      const RacePair& p = *pp;
      const RaceGroup& g = groups.Of(p);
      json first = event(p.first), second = event(p.second);
      VariableInfo v;
      if (details != nullptr) {
        v = DescribeVariable(*details, p.first);
        first["size"] = ShownSize(p.first, v);
        second["size"] = ShownSize(p.second, v);
      }
      pairs.push_back({{"first", std::move(first)},
                       {"second", std::move(second)},
                       {"variable", names.Object(p.first.kind, p.first.object)},
                       {"occurrences", p.occurrences},
                       {"engines", groups.Engines(p)},
                       {"proof", RaceProofName(g.proof)},
                       {"proof_description", ProofText(g)},
                       {"variable_details", VariableJson(details, p.first, &v)},
                       {"confirmed", p.confirmed ? json(*p.confirmed) : json(nullptr)}});
      if (p.confirmed.value_or(false)) pairs.back()["confirmation"] = WitnessJson(p.confirmation);
    }
    races[r.engine] = {{"guarantee", GuaranteeName(r.guarantee)},
                       {"guarantee_description", GuaranteeDescription(r.guarantee)},
                       {"racy_events", r.racy_events},
                       {"racy_locations", r.racy_locations},
                       {"race_pairs", r.pairs.size()},
                       {"pairs", pairs}};
  }
  out["races"] = races;

  // A cycle of lock steps: a deadlock's threads, or a lock-order inversion's acquisitions.
  auto cycle_json = [&](const std::string& engine, const std::vector<DeadlockThread>& steps) {
    json cycle = json::array(), locks = json::array(), events = json::array();
    for (const DeadlockThread& t : steps) {
      locks.push_back(names.Object(EventKind::kAcquire, t.held_lock));
      events.push_back(WithRole(event(t.held_acquire), "held_acquire"));
      events.push_back(WithRole(event(t.blocked_acquire), "blocked_acquire"));
      cycle.push_back({{"thread", t.tid},
                       {"thread_name", names.Thread(t.tid)},
                       {"held_lock", names.Object(EventKind::kAcquire, t.held_lock)},
                       {"held_acquire", event(t.held_acquire)},
                       {"wanted_lock", names.Object(EventKind::kAcquire, t.wanted_lock)},
                       {"blocked_acquire", event(t.blocked_acquire)}});
    }
    return json{{"engine", engine}, {"locks", locks}, {"cycle", cycle}, {"events", events}};
  };
  json deadlocks = json::array();
  for (const Deadlock& d : findings.deadlocks) {
    json entry = cycle_json(d.engine, d.cycle);
    entry["guarantee"] = GuaranteeName(d.guarantee);
    entry["witness"] = WitnessJson(d.witness);
    deadlocks.push_back(std::move(entry));
  }
  out["deadlocks"] = deadlocks;
  json inversions = json::array();
  for (const LockOrderInversion& inv : findings.lock_order) inversions.push_back(cycle_json(inv.engine, inv.cycle));
  out["lock_order_inversions"] = inversions;

  // A candidate has no witness (it is not a finding: `seer fuzz` tries it).
  auto atomicity_json = [&](const AtomicityViolation& a, bool candidate) {
    VariableInfo v;
    if (details != nullptr) v = DescribeVariable(*details, a.local_first);
    return json{
        {"engine", a.engine},
        {"pattern", a.pattern},
        {"variable", names.Object(a.local_first.kind, a.local_first.object)},
        {"variable_details", VariableJson(details, a.local_first, &v)},
        {"local_first", event(a.local_first)},
        {"remote", event(a.remote)},
        {"local_second", event(a.local_second)},
        {"events", json::array({WithRole(event(a.local_first), "local_first"), WithRole(event(a.remote), "remote"),
                                WithRole(event(a.local_second), "local_second")})},
        {"witness", candidate ? json(nullptr) : WitnessJson(a.witness)}};
  };
  json atomicity = json::array(), candidates = json::array();
  for (const AtomicityViolation& a : findings.atomicity) atomicity.push_back(atomicity_json(a, false));
  for (const AtomicityViolation& a : findings.atomicity_candidates) candidates.push_back(atomicity_json(a, true));
  out["atomicity"] = atomicity;
  out["atomicity_candidates"] = candidates;
  json stats = json::object();
  for (const AnalysisStats& st : findings.stats) {
    json counters = json::object();
    for (const auto& [name, value] : st.counters) counters[name] = value;
    stats[st.analysis] = counters;
  }
  out["stats"] = stats;
  json warnings = json::array();
  if (details != nullptr)
    for (const std::string& w : details->symbolizer->warnings()) warnings.push_back(w);
  out["warnings"] = warnings;
  return out.dump(2) + "\n";
}

}  // namespace seer::predictor
