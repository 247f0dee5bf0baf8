// The SARIF 2.1.0 report, for CI code scanning. One run; a rule per finding kind
// (a data race per engine guarantee, deadlock, atomicity violation, atomic-block
// violation); a result per distinct race pair (all engines that found it in its
// properties), deadlock and atomicity violation, with its locations, stacks, the
// witness schedule as one thread flow per thread, and a fingerprint built from
// source positions only, so that code scanning matches results across runs.
#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <map>

#include <nlohmann/json.hpp>

#include "predictor/report/details.h"
#include "predictor/report/race_groups.h"
#include "predictor/report/report.h"
#include "predictor/report/schedule_events.h"

namespace seer::predictor {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;

struct Rule {
  const char* id;
  const char* name;
  const char* short_text;
  const char* full_text;
};

// Stable, opaque ids (code scanning keys its alerts by them); the names say what they are.
constexpr Rule kRules[] = {
    {"SEER1001", "DataRaceSoundEngine", "Data race reported by a sound engine.",
     "Two conflicting accesses that an engine which reports only real races (SHB) leaves unordered: some "
     "reordering of the recorded run performs them at once."},
    {"SEER1002", "DataRaceWitnessed", "Data race with a witness schedule.",
     "Two conflicting accesses that SeqCheck reaches at once in a schedule re-checked by an independent validator."},
    {"SEER1003", "DataRaceFirstRaceReal", "Data race predicted by HB or WCP.",
     "Two conflicting accesses an engine whose first race is real (HB; WCP: or a deadlock is) leaves unordered. "
     "Later races of these engines may not be real: the result says whether this one is proven."},
    {"SEER1004", "DataRaceComplete", "Data race predicted by a complete engine.",
     "Two conflicting accesses Lockset-W3 cannot order: it misses no predictable race but may report races that "
     "cannot happen (it is sound with two threads)."},
    {"SEER1005", "DataRaceHeuristic", "Lockset discipline violation.",
     "Two accesses of a variable not protected by a common lock (Eraser's lockset): neither sound nor complete."},
    {"SEER1006", "DataRaceCaught", "Data race caught in the act by a hardware watchpoint.",
     "Two threads touched the same bytes in the recorded run, the second while the first was held at its access "
     "with a hardware watchpoint on them (seer record --watch): real by construction."},
    {"SEER2001", "Deadlock", "A deadlock: predicted with a witness schedule, or one that happened.",
     "A cycle of threads, each holding a lock and blocked acquiring the next thread's, reached by a reordering of "
     "the recorded run that SeqCheck found and an independent checker replayed (engine deadlock), or in which the "
     "recorded run itself ended (engine blocked: the threads were still waiting when it was killed or stopped)."},
    {"SEER2002", "LockOrderInversion", "Locks taken in orders that form a cycle.",
     "Somewhere a lock A is taken while B is held, and elsewhere B while A is held (by any threads, one thread "
     "included), as ThreadSanitizer's lock-order-inversion: threads running these paths at once can deadlock. Not a "
     "predicted deadlock of the recorded run's threads (SEER2001 is)."},
    {"SEER3001", "AtomicityViolation", "Predicted atomicity violation with a witness schedule.",
     "Two accesses of one thread with an access of another thread between them that no serial order explains "
     "(a lost update or a stale read), reached by a validated reordering of the recorded run."},
    {"SEER3002", "AtomicBlockViolation", "Marked atomic block not serializable.",
     "Blocks marked atomic (begin/end) that are not conflict-serializable in the recorded run itself."},
};

size_t RuleIndex(const std::string& id) {
  for (size_t i = 0; i < std::size(kRules); ++i)
    if (id == kRules[i].id) return i;
  return 0;
}

const char* RaceRule(const RaceGroup& g) {
  // The strongest guarantee among the engines that report the pair.
  auto rank = [](Guarantee gu) {
    switch (gu) {
      case Guarantee::kCaught:
      case Guarantee::kHappened: return 0;
      case Guarantee::kAllReal: return 1;
      case Guarantee::kWitnessed: return 2;
      case Guarantee::kFirstIsReal: return 3;
      case Guarantee::kComplete: return 4;
      case Guarantee::kHeuristic: return 5;
    }
    return 5;
  };
  Guarantee best = g.engines.front()->guarantee;
  for (const RaceResult* r : g.engines)
    if (rank(r->guarantee) < rank(best)) best = r->guarantee;
  switch (best) {
    case Guarantee::kAllReal: return "SEER1001";
    case Guarantee::kWitnessed: return "SEER1002";
    case Guarantee::kFirstIsReal: return "SEER1003";
    case Guarantee::kComplete: return "SEER1004";
    case Guarantee::kHeuristic: return "SEER1005";
    case Guarantee::kCaught:
    case Guarantee::kHappened: return "SEER1006";  // no race engine has it
  }
  return "SEER1005";
}

// RFC 3986: everything but unreserved characters and '/' percent-encoded.
std::string UriEscape(const std::string& path) {
  std::string out;
  for (unsigned char c : path) {
    if (std::isalnum(c) || c == '-' || c == '.' || c == '_' || c == '~' || c == '/')
      out += static_cast<char>(c);
    else
      out += fmt::format("%{:02X}", c);
  }
  return out;
}

// 64-bit FNV-1a: the fingerprint needs stability, not secrecy.
std::string Fingerprint(const std::string& text) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (unsigned char c : text) {
    h ^= c;
    h *= 0x100000001b3ull;
  }
  return fmt::format("{:016x}", h);
}

class SarifWriter {
 public:
  SarifWriter(const TraceReader& trace, ReportDetails* details, const fs::path& root,
              const std::map<uint64_t, Event>& schedule_events)
      : names_(trace), details_(details), root_(root), schedule_events_(schedule_events) {}

  json Race(const RaceGroup& g) {
    const RacePair& p = *g.pair;
    const std::string variable = Variable(p.first);
    std::string engines;
    for (const RaceResult* r : g.engines) engines += (engines.empty() ? "" : ", ") + r->engine;
    json result =
        Result(RaceRule(g), g.proof == RaceProof::kPredicted ? "warning" : "error",
               fmt::format("Data race on {}: {} of size {} by {} at {} and earlier {} by {} at {}. {}. "
                           "Reported by {}.",
                           variable, EventKindName(p.second.kind),
                           details_ ? ShownSize(p.second, DescribeVariable(*details_, p.first)) : p.second.size,
                           names_.Thread(p.second.tid), EventSite(names_, details_, p.second),
                           EventKindName(p.first.kind), names_.Thread(p.first.tid),
                           EventSite(names_, details_, p.first), Capitalised(ProofText(g)), engines));
    if (p.second.tid == kThreadNotSeen) {
      // Caught by the value alone: the writer has no location to show.
      result["locations"] = json::array({Location(p.first, "the held access")});
      result["stacks"] = json::array({Stack(p.first, "the held access")});
      result["relatedLocations"] = json::array({Related(1, p.first, "the held access")});
    } else {
      result["locations"] = json::array({Location(p.second, "this access"), Location(p.first, "the earlier access")});
      result["stacks"] = json::array({Stack(p.second, "this access"), Stack(p.first, "the earlier access")});
      result["relatedLocations"] =
          json::array({Related(1, p.second, "this access"), Related(2, p.first, "the earlier access")});
    }
    std::vector<std::string> sites = {SiteKey(p.first), SiteKey(p.second)};
    std::sort(sites.begin(), sites.end());  // the pair is unordered
    result["partialFingerprints"] = {{"seerFinding/v1", Fingerprint("race|" + sites[0] + "|" + sites[1])}};
    std::vector<std::string> engine_names;
    for (const RaceResult* r : g.engines) engine_names.push_back(r->engine);
    result["properties"] = {{"engines", engine_names},
                            {"proof", RaceProofName(g.proof)},
                            {"variable", variable},
                            {"occurrences", p.occurrences},
                            {"events", {p.first.index, p.second.index}}};
    if (g.confirmation != nullptr && g.confirmation->confirmed.value_or(false))
      result["codeFlows"] = CodeFlows(g.confirmation->confirmation, {p.first.index, p.second.index});
    return result;
  }

  json DeadlockResult(const Deadlock& d) {
    json result = CycleResult("SEER2001", "error", "Deadlock of {} threads on locks {}: {}.", "deadlock", d.cycle);
    const std::vector<uint64_t> events = result["properties"]["events"];
    result["properties"] = {{"engine", d.engine}, {"guarantee", GuaranteeName(d.guarantee)}, {"events", events}};
    if (!d.witness.schedule.empty()) result["codeFlows"] = CodeFlows(d.witness, events);
    return result;
  }

  json InversionResult(const LockOrderInversion& inv) {
    json result = CycleResult("SEER2002", "warning", "Lock-order inversion of {} acquisitions on locks {}: {}.",
                              "lock-order", inv.cycle);
    result["properties"]["engine"] = inv.engine;
    return result;
  }

  // A cycle of lock steps: each holds a lock and wants the next one's.
  json CycleResult(const char* rule, const char* level, const char* message, const char* kind,
                   const std::vector<DeadlockThread>& cycle) {
    std::string locks, sites;
    json locations = json::array(), related = json::array(), stacks = json::array();
    std::vector<std::string> keys;
    std::vector<uint64_t> events;
    int id = 1;
    for (const DeadlockThread& t : cycle) {
      const std::string held = Variable({0, 0, 0, EventKind::kAcquire, t.held_lock, 0});
      const std::string wanted = Variable({0, 0, 0, EventKind::kAcquire, t.wanted_lock, 0});
      locks += (locks.empty() ? "" : ", ") + held;
      sites += fmt::format("{}{} holds {} (acquired at {}) and wants {} (at {})", sites.empty() ? "" : "; ",
                           names_.Thread(t.tid), held, EventSite(names_, details_, t.held_acquire), wanted,
                           EventSite(names_, details_, t.blocked_acquire));
      const std::string what = fmt::format("{} acquires {}", names_.Thread(t.tid), held);
      locations.push_back(Location(t.held_acquire, what));
      stacks.push_back(Stack(t.held_acquire, what));
      const std::string blocked = fmt::format("{} blocks acquiring {}", names_.Thread(t.tid), wanted);
      related.push_back(Related(id++, t.blocked_acquire, blocked));
      stacks.push_back(Stack(t.blocked_acquire, blocked));
      keys.push_back(SiteKey(t.held_acquire) + ">" + SiteKey(t.blocked_acquire));
      events.push_back(t.held_acquire.index);
      events.push_back(t.blocked_acquire.index);
    }
    json result = Result(rule, level, fmt::format(fmt::runtime(message), cycle.size(), locks, sites));
    result["locations"] = locations;
    result["relatedLocations"] = related;
    result["stacks"] = stacks;
    std::sort(keys.begin(), keys.end());  // the cycle may start at any thread
    std::string key = kind;
    for (const std::string& k : keys) key += "|" + k;
    result["partialFingerprints"] = {{"seerFinding/v1", Fingerprint(key)}};
    result["properties"] = {{"events", events}};
    return result;
  }

  json Atomicity(const AtomicityViolation& a) {
    const bool blocks = a.engine == "atomic-blocks";
    const std::string variable = Variable(a.local_first);
    json result = Result(blocks ? "SEER3002" : "SEER3001", "error",
                         fmt::format("{} ({}) on {}: {} {} at {}; then {} {} at {}; then {} {} at {}.",
                                     blocks ? "Atomic block not serializable" : "Atomicity violation", a.pattern,
                                     variable, names_.Thread(a.local_first.tid), EventKindName(a.local_first.kind),
                                     EventSite(names_, details_, a.local_first), names_.Thread(a.remote.tid),
                                     EventKindName(a.remote.kind), EventSite(names_, details_, a.remote),
                                     names_.Thread(a.local_second.tid), EventKindName(a.local_second.kind),
                                     EventSite(names_, details_, a.local_second)));
    const std::pair<const EventRef*, const char*> roles[] = {
        {&a.local_first, "first access"}, {&a.remote, "the other thread's access"}, {&a.local_second, "second access"}};
    json locations = json::array(), stacks = json::array(), related = json::array();
    std::string key = std::string(blocks ? "atomic-block" : "atomicity") + "|" + a.pattern;
    int id = 1;
    for (const auto& [e, role] : roles) {
      locations.push_back(Location(*e, role));
      stacks.push_back(Stack(*e, role));
      related.push_back(Related(id++, *e, role));
      key += "|" + SiteKey(*e);
    }
    result["locations"] = locations;
    result["relatedLocations"] = related;
    result["stacks"] = stacks;
    result["partialFingerprints"] = {{"seerFinding/v1", Fingerprint(key)}};
    result["properties"] = {{"engine", a.engine},
                            {"pattern", a.pattern},
                            {"variable", variable},
                            {"events", {a.local_first.index, a.remote.index, a.local_second.index}}};
    if (!a.witness.schedule.empty())
      result["codeFlows"] = CodeFlows(a.witness, {a.local_first.index, a.remote.index, a.local_second.index});
    return result;
  }

 private:
  static std::string Capitalised(std::string s) {
    if (!s.empty() && s[0] >= 'a' && s[0] <= 'z') s[0] = static_cast<char>(s[0] - 'a' + 'A');
    return s;
  }

  static json Result(const char* rule, const char* level, const std::string& message) {
    return {{"ruleId", rule}, {"ruleIndex", RuleIndex(rule)}, {"level", level}, {"message", {{"text", message}}}};
  }

  // The trace's name for the accessed object or lock, or its global's
  // ("counter", "g_accounts+0x28") in a symbolised recorded trace, or its address.
  std::string Variable(const EventRef& e) {
    std::string name = names_.ObjectName(e.kind, e.object);
    if (name.empty() && details_ != nullptr) name = GlobalName(*details_, e.object);
    return name.empty() ? names_.Object(e.kind, e.object) : name;
  }

  std::vector<Frame> Frames(const EventRef& e) {
    if (details_ == nullptr) return {};
    return EventFrames(*details_, e);
  }

  // An absolute path under the source root becomes relative to SRCROOT; other
  // absolute paths stay file:// URIs; relative ones (as the compiler was given
  // them) are taken as relative to SRCROOT.
  json Artifact(const std::string& file) const {
    const fs::path p = fs::path(file).lexically_normal();
    if (p.is_absolute()) {
      const fs::path rel = p.lexically_relative(root_);
      if (!rel.empty() && *rel.begin() != "..") return {{"uri", UriEscape(rel.string())}, {"uriBaseId", "SRCROOT"}};
      return {{"uri", "file://" + UriEscape(p.string())}};
    }
    return {{"uri", UriEscape(p.string())}, {"uriBaseId", "SRCROOT"}};
  }

  json FrameLocation(const Frame* f, uint64_t pc) const {
    json loc = json::object();
    if (f != nullptr && !f->file.empty() && f->line > 0) {
      json region = {{"startLine", f->line}};
      if (f->column > 0) region["startColumn"] = f->column;
      loc["physicalLocation"] = {{"artifactLocation", Artifact(f->file)}, {"region", region}};
    }
    if (f != nullptr && !f->function.empty()) {
      loc["logicalLocations"] = json::array({{{"fullyQualifiedName", f->function}, {"kind", "function"}}});
    } else if (f != nullptr && !f->module.empty()) {
      loc["logicalLocations"] = json::array(
          {{{"fullyQualifiedName", fmt::format("{}+{:#x}", fs::path(f->module).filename().string(), f->offset)}}});
    } else {
      loc["logicalLocations"] = json::array({{{"fullyQualifiedName", names_.Site(pc)}}});
    }
    return loc;
  }

  json Location(const EventRef& e, const std::string& role) {
    // The program's own frame: an alert in an inlined std::mutex::lock of
    // /usr/include would point outside the repository.
    const std::vector<Frame> frames = Frames(e);
    json loc = FrameLocation(frames.empty() ? nullptr : &frames[OwnFrame(frames)], e.pc);
    loc["message"] = {{"text", fmt::format("{}: {} {} by {} (event {})", role, EventKindName(e.kind),
                                           names_.Object(e.kind, e.object), names_.Thread(e.tid), e.index)}};
    return loc;
  }

  json Related(int id, const EventRef& e, const std::string& role) {
    json loc = Location(e, role);
    loc["id"] = id;
    return loc;
  }

  json Stack(const EventRef& e, const std::string& role) {
    std::vector<Frame> frames = Frames(e);
    json out = json::array();
    if (frames.empty()) out.push_back({{"location", FrameLocation(nullptr, e.pc)}});
    for (const Frame& f : frames) {
      json frame = {{"location", FrameLocation(&f, f.pc)}};
      if (!f.module.empty()) frame["module"] = fs::path(f.module).filename().string();
      out.push_back(frame);
    }
    return {{"message", {{"text", fmt::format("{} by {} (event {})", role, names_.Thread(e.tid), e.index)}}},
            {"frames", out}};
  }

  // What names a source position across runs: function, file name and line;
  // without symbols, the module and offset; else the pc or location id.
  std::string SiteKey(const EventRef& e) {
    const std::vector<Frame> frames = Frames(e);
    std::string kind(EventKindName(e.kind));
    if (frames.empty()) return kind + "@" + names_.Site(e.pc);
    const Frame& f = frames[OwnFrame(frames)];
    if (!f.file.empty())
      return fmt::format("{}@{}:{}:{}", kind, f.function, fs::path(f.file).filename().string(), f.line);
    if (!f.module.empty()) return fmt::format("{}@{}+{:#x}", kind, fs::path(f.module).filename().string(), f.offset);
    return kind + "@" + names_.Site(e.pc);
  }

  // The witness schedule's tail, one thread flow per thread; executionOrder
  // gives the interleaving, the finding's own events are "essential".
  json CodeFlows(const Witness& w, const std::vector<uint64_t>& finding_events) {
    const std::vector<uint64_t> tail = ScheduleTail(w);
    std::map<uint32_t, json> flows;
    for (size_t step = 0; step < tail.size(); ++step) {
      auto it = schedule_events_.find(tail[step]);
      if (it == schedule_events_.end()) continue;
      const EventRef e = EventRef::Of(it->second);
      const bool own = std::find(finding_events.begin(), finding_events.end(), e.index) != finding_events.end();
      json loc = {{"location", Location(e, fmt::format("step {}", w.schedule.size() - tail.size() + step + 1))},
                  {"executionOrder", step + 1},
                  {"importance", own ? "essential" : "important"}};
      if (!flows.count(e.tid))
        flows[e.tid] = {{"id", fmt::format("T{}", e.tid)},
                        {"message", {{"text", "thread " + names_.Thread(e.tid)}}},
                        {"locations", json::array()}};
      flows[e.tid]["locations"].push_back(loc);
    }
    json thread_flows = json::array();
    for (auto& [tid, flow] : flows) thread_flows.push_back(flow);
    if (thread_flows.empty()) return json::array();
    return json::array(
        {{{"message",
           {{"text", fmt::format("Witness schedule: the last {} of its {} steps ({})", tail.size(), w.schedule.size(),
                                 w.validated ? "validated by SeqCheck's independent checker" : "not validated")}}},
          {"threadFlows", thread_flows}}});
  }

  const ReportNames names_;
  ReportDetails* details_;
  const fs::path root_;
  const std::map<uint64_t, Event>& schedule_events_;
};

json Rules() {
  json rules = json::array();
  for (const Rule& r : kRules) {
    rules.push_back(
        {{"id", r.id},
         {"name", r.name},
         {"shortDescription", {{"text", r.short_text}}},
         {"fullDescription", {{"text", r.full_text}}},
         {"help",
          {{"text", std::string(r.full_text) + " See docs/analyses.md for the analyses and their guarantees."}}},
         {"defaultConfiguration", {{"level", "error"}}}});
  }
  return rules;
}

}  // namespace

Status SarifReport(const TraceReader& trace, const Findings& findings, const std::vector<std::string>& analyses,
                   ReportDetails* details, const ReportOptions& options, std::string* out) {
  const TraceInfo& info = trace.info();
  if (info.modules.empty()) details = nullptr;  // no module map: nothing to symbolise
  std::map<uint64_t, Event> schedule_events;
  Status s = ReadScheduleEvents(info.path, findings, &schedule_events);
  if (!s.ok()) return s.WithContext("reading the witness schedules' events");

  std::error_code ec;
  fs::path root = fs::absolute(options.source_root.empty() ? fs::current_path(ec) : fs::path(options.source_root), ec);
  if (ec) return Status::IOError(options.source_root + ": " + ec.message());
  root = root.lexically_normal();
  std::string root_uri = "file://" + UriEscape(root.string());
  if (root_uri.back() != '/') root_uri += '/';

  SarifWriter writer(trace, details, root, schedule_events);
  json results = json::array();
  for (const RaceGroup& g : GroupRaces(findings)) results.push_back(writer.Race(g));
  for (const Deadlock& d : findings.deadlocks) results.push_back(writer.DeadlockResult(d));
  for (const LockOrderInversion& inv : findings.lock_order) results.push_back(writer.InversionResult(inv));
  for (const AtomicityViolation& a : findings.atomicity) results.push_back(writer.Atomicity(a));

  json run = {{"tool",
               {{"driver",
                 {{"name", "seer"},
                  {"version", SEER_VERSION},
                  {"semanticVersion", SEER_VERSION},
                  {"fullName", "seer: predicted races, deadlocks and atomicity violations of one recorded run"},
                  {"rules", Rules()}}}}},
              {"originalUriBaseIds", {{"SRCROOT", {{"uri", root_uri}}}}},
              {"invocations", json::array({{{"executionSuccessful", true}}})},
              {"results", results},
              {"properties",
               {{"trace", info.path},
                {"events", info.counters.events},
                {"threads", info.counters.distinct_threads},
                {"lostEvents", info.counters.TotalLost()},
                {"analyses", analyses}}}};
  if (details != nullptr && !details->symbolizer->warnings().empty()) {
    json notes = json::array();
    for (const std::string& w : details->symbolizer->warnings())
      notes.push_back({{"level", "warning"}, {"message", {{"text", w}}}});
    run["invocations"][0]["toolExecutionNotifications"] = notes;
  }
  json sarif = {
      {"$schema", "https://json.schemastore.org/sarif-2.1.0.json"}, {"version", "2.1.0"}, {"runs", json::array({run})}};
  *out = sarif.dump(2) + "\n";
  return Status::Ok();
}

}  // namespace seer::predictor
