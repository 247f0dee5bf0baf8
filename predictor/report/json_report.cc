// The JSON report. Its schema is a contract with tools (docs/cli.md): add keys,
// never rename or remove them.
#include <cstddef>
#include <vector>

#include <nlohmann/json.hpp>

#include "predictor/report/json_util.h"
#include "predictor/report/report.h"

namespace seer {
namespace {

using nlohmann::json;

json EventJson(const ReportNames& names, const EventRef& e) {
  json j = {{"index", e.index},
            {"thread", e.tid},
            {"thread_name", names.Thread(e.tid)},
            {"kind", std::string(EventKindName(e.kind))},
            {"location", e.pc},
            {"object", e.object},
            {"size", e.size}};
  std::string name = names.ObjectName(e.kind, e.object);
  if (!name.empty()) j["object_name"] = name;
  return j;
}

// Schedules can be millions of positions long: the report keeps the end, where
// the bug happens.
constexpr size_t kScheduleTail = 50;

json WitnessJson(const Witness& w) {
  const size_t from = w.schedule.size() > kScheduleTail ? w.schedule.size() - kScheduleTail : 0;
  return {{"validated", w.validated},
          {"length", w.schedule.size()},
          {"schedule_tail", std::vector<uint64_t>(w.schedule.begin() + static_cast<ptrdiff_t>(from), w.schedule.end())}};
}

// An event of a deadlock or atomicity violation, with its part in the finding.
json RoleJson(const ReportNames& names, const EventRef& e, const char* role) {
  json j = EventJson(names, e);
  j["role"] = role;
  return j;
}

}  // namespace

std::string JsonReport(const TraceReader& trace, const Findings& findings, const std::vector<std::string>& analyses) {
  const TraceInfo& info = trace.info();
  const ReportNames names(trace);
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

  json races = json::object();
  for (const RaceResult& r : findings.races) {
    json pairs = json::array();
    for (const RacePair& p : r.pairs) {
      pairs.push_back({{"first", EventJson(names, p.first)},
                       {"second", EventJson(names, p.second)},
                       {"variable", names.Object(p.first.kind, p.first.object)},
                       {"occurrences", p.occurrences},
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

  json deadlocks = json::array();
  for (const Deadlock& d : findings.deadlocks) {
    json cycle = json::array(), locks = json::array(), events = json::array();
    for (const DeadlockThread& t : d.cycle) {
      locks.push_back(names.Object(EventKind::kAcquire, t.held_lock));
      events.push_back(RoleJson(names, t.held_acquire, "held_acquire"));
      events.push_back(RoleJson(names, t.blocked_acquire, "blocked_acquire"));
      cycle.push_back({{"thread", t.tid},
                       {"thread_name", names.Thread(t.tid)},
                       {"held_lock", names.Object(EventKind::kAcquire, t.held_lock)},
                       {"held_acquire", EventJson(names, t.held_acquire)},
                       {"wanted_lock", names.Object(EventKind::kAcquire, t.wanted_lock)},
                       {"blocked_acquire", EventJson(names, t.blocked_acquire)}});
    }
    deadlocks.push_back({{"engine", d.engine},
                         {"guarantee", GuaranteeName(d.guarantee)},
                         {"locks", locks},
                         {"cycle", cycle},
                         {"events", events},
                         {"witness", WitnessJson(d.witness)}});
  }
  out["deadlocks"] = deadlocks;

  json atomicity = json::array();
  for (const AtomicityViolation& a : findings.atomicity) {
    atomicity.push_back({{"engine", a.engine},
                         {"pattern", a.pattern},
                         {"variable", names.Object(a.local_first.kind, a.local_first.object)},
                         {"local_first", EventJson(names, a.local_first)},
                         {"remote", EventJson(names, a.remote)},
                         {"local_second", EventJson(names, a.local_second)},
                         {"events", json::array({RoleJson(names, a.local_first, "local_first"),
                                                 RoleJson(names, a.remote, "remote"),
                                                 RoleJson(names, a.local_second, "local_second")})},
                         {"witness", WitnessJson(a.witness)}});
  }
  out["atomicity"] = atomicity;
  return out.dump(2) + "\n";
}

}  // namespace seer
