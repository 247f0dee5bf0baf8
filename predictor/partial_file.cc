#include "predictor/partial_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>
#include <utility>

namespace seer::predictor {

using nlohmann::json;

namespace {

// A missing or mistyped field throws json::exception; DecodePartial turns it
// into a Corruption naming the file.
json EventRefJson(const EventRef& e) {
  return {{"index", e.index},   {"tid", e.tid},  {"pc", e.pc}, {"kind", static_cast<int>(e.kind)},
          {"object", e.object}, {"size", e.size}};
}
EventRef EventRefFrom(const json& j) {
  EventRef e;
  e.index = j.at("index").get<uint64_t>();
  e.tid = j.at("tid").get<uint32_t>();
  e.pc = j.at("pc").get<uint64_t>();
  const int kind = j.at("kind").get<int>();
  if (kind < 0 || kind >= static_cast<int>(kNumEventKinds))
    throw std::out_of_range("event kind " + std::to_string(kind));
  e.kind = static_cast<EventKind>(kind);
  e.object = j.at("object").get<uint64_t>();
  e.size = j.at("size").get<uint64_t>();
  return e;
}

json WitnessJson(const Witness& w) {
  json runs = json::array();
  for (const Schedule::Run& r : w.schedule.runs()) runs.push_back({r.first, r.count});
  return {{"runs", std::move(runs)}, {"validated", w.validated}};
}
Witness WitnessFrom(const json& j) {
  Witness w;
  for (const json& r : j.at("runs")) w.schedule.AppendRun(r.at(0).get<uint64_t>(), r.at(1).get<uint64_t>());
  w.validated = j.at("validated").get<bool>();
  return w;
}

Guarantee GuaranteeFrom(const json& j) {
  const int g = j.get<int>();
  if (g < 0 || g > static_cast<int>(Guarantee::kHappened)) throw std::out_of_range("guarantee " + std::to_string(g));
  return static_cast<Guarantee>(g);
}

json CycleJson(const std::vector<DeadlockThread>& cycle) {
  json out = json::array();
  for (const DeadlockThread& t : cycle)
    out.push_back({{"tid", t.tid},
                   {"held_lock", t.held_lock},
                   {"held_acquire", EventRefJson(t.held_acquire)},
                   {"wanted_lock", t.wanted_lock},
                   {"blocked_acquire", EventRefJson(t.blocked_acquire)}});
  return out;
}
std::vector<DeadlockThread> CycleFrom(const json& j) {
  std::vector<DeadlockThread> out;
  for (const json& t : j)
    out.push_back({t.at("tid").get<uint32_t>(), t.at("held_lock").get<uint64_t>(), EventRefFrom(t.at("held_acquire")),
                   t.at("wanted_lock").get<uint64_t>(), EventRefFrom(t.at("blocked_acquire"))});
  return out;
}

json AtomicityJson(const std::vector<AtomicityViolation>& list) {
  json out = json::array();
  for (const AtomicityViolation& v : list)
    out.push_back({{"engine", v.engine},
                   {"pattern", v.pattern},
                   {"local_first", EventRefJson(v.local_first)},
                   {"remote", EventRefJson(v.remote)},
                   {"local_second", EventRefJson(v.local_second)},
                   {"witness", WitnessJson(v.witness)}});
  return out;
}
std::vector<AtomicityViolation> AtomicityFrom(const json& j) {
  std::vector<AtomicityViolation> out;
  for (const json& v : j)
    out.push_back({v.at("engine").get<std::string>(), v.at("pattern").get<std::string>(),
                   EventRefFrom(v.at("local_first")), EventRefFrom(v.at("remote")), EventRefFrom(v.at("local_second")),
                   WitnessFrom(v.at("witness"))});
  return out;
}

json SeqCheckStatsJson(const seqcheck::SeqCheckStats& s) {
  return {{"candidates", s.candidates},
          {"filtered", s.filtered},
          {"forced", s.forced},
          {"outside_region", s.outside_region},
          {"checks", s.checks},
          {"feasible", s.feasible},
          {"invalid_witnesses", s.invalid_witnesses},
          {"window_events", s.window_events},
          {"check_seconds", s.check_seconds}};
}
seqcheck::SeqCheckStats SeqCheckStatsFrom(const json& j) {
  seqcheck::SeqCheckStats s;
  s.candidates = j.at("candidates").get<uint64_t>();
  s.filtered = j.at("filtered").get<uint64_t>();
  s.forced = j.at("forced").get<uint64_t>();
  s.outside_region = j.at("outside_region").get<uint64_t>();
  s.checks = j.at("checks").get<uint64_t>();
  s.feasible = j.at("feasible").get<uint64_t>();
  s.invalid_witnesses = j.at("invalid_witnesses").get<uint64_t>();
  s.window_events = j.at("window_events").get<uint64_t>();
  s.check_seconds = j.at("check_seconds").get<double>();
  return s;
}

// Every option that may change a finding (jobs does not; the hook is not an option).
json OptionsJson(const AnalysisOptions& o) {
  return {{"atomicity_window", o.atomicity_window},
          {"confirm_races", o.confirm_races},
          {"confirm_races_max_events", o.confirm_races_max_events},
          {"w3_history", o.w3_history},
          {"w3_edges", o.w3_edges},
          {"w3_position_cache_bytes", o.w3_position_cache_bytes},
          {"wcp_queue_bytes", o.wcp_queue_bytes},
          {"rapid_compatible", o.rapid_compatible},
          {"deadlock_max_cycle", o.deadlock_max_cycle},
          {"deadlock_max_checks", o.deadlock_max_checks},
          {"seqcheck_window", o.seqcheck_window}};
}
AnalysisOptions OptionsFrom(const json& j) {
  AnalysisOptions o;
  o.atomicity_window = j.at("atomicity_window").get<uint64_t>();
  o.confirm_races = j.at("confirm_races").get<bool>();
  o.confirm_races_max_events = j.at("confirm_races_max_events").get<uint64_t>();
  o.w3_history = j.at("w3_history").get<uint64_t>();
  o.w3_edges = j.at("w3_edges").get<uint64_t>();
  o.w3_position_cache_bytes = j.at("w3_position_cache_bytes").get<uint64_t>();
  o.wcp_queue_bytes = j.at("wcp_queue_bytes").get<uint64_t>();
  o.rapid_compatible = j.at("rapid_compatible").get<bool>();
  o.deadlock_max_cycle = j.at("deadlock_max_cycle").get<uint32_t>();
  o.deadlock_max_checks = j.at("deadlock_max_checks").get<uint64_t>();
  o.seqcheck_window = j.at("seqcheck_window").get<uint64_t>();
  return o;
}

}  // namespace

json FindingsToJson(const Findings& f) {
  json races = json::array();
  for (const RaceResult& r : f.races) {
    json pairs = json::array();
    for (const RacePair& p : r.pairs) {
      json pair = {{"first", EventRefJson(p.first)},
                   {"second", EventRefJson(p.second)},
                   {"occurrences", p.occurrences},
                   {"confirmation", WitnessJson(p.confirmation)}};
      pair["confirmed"] = p.confirmed.has_value() ? json(*p.confirmed) : json(nullptr);
      pairs.push_back(std::move(pair));
    }
    races.push_back({{"engine", r.engine},
                     {"guarantee", static_cast<int>(r.guarantee)},
                     {"racy_events", r.racy_events},
                     {"racy_locations", r.racy_locations},
                     {"pairs", std::move(pairs)}});
  }
  json deadlocks = json::array();
  for (const Deadlock& d : f.deadlocks)
    deadlocks.push_back({{"engine", d.engine},
                         {"guarantee", static_cast<int>(d.guarantee)},
                         {"cycle", CycleJson(d.cycle)},
                         {"witness", WitnessJson(d.witness)}});
  json lock_order = json::array();
  for (const LockOrderInversion& l : f.lock_order)
    lock_order.push_back({{"engine", l.engine}, {"cycle", CycleJson(l.cycle)}});
  json stats = json::array();
  for (const AnalysisStats& s : f.stats) {
    json counters = json::array();
    for (const auto& [name, value] : s.counters) counters.push_back({name, value});
    stats.push_back({{"analysis", s.analysis}, {"counters", std::move(counters)}});
  }
  return {{"races", std::move(races)},
          {"deadlocks", std::move(deadlocks)},
          {"lock_order", std::move(lock_order)},
          {"atomicity", AtomicityJson(f.atomicity)},
          {"atomicity_candidates", AtomicityJson(f.atomicity_candidates)},
          {"stats", std::move(stats)}};
}

Status FindingsFromJson(const json& j, Findings* out) {
  try {
    Findings f;
    for (const json& r : j.at("races")) {
      RaceResult result;
      result.engine = r.at("engine").get<std::string>();
      result.guarantee = GuaranteeFrom(r.at("guarantee"));
      result.racy_events = r.at("racy_events").get<uint64_t>();
      result.racy_locations = r.at("racy_locations").get<uint64_t>();
      for (const json& p : r.at("pairs")) {
        RacePair pair;
        pair.first = EventRefFrom(p.at("first"));
        pair.second = EventRefFrom(p.at("second"));
        pair.occurrences = p.at("occurrences").get<uint64_t>();
        if (!p.at("confirmed").is_null()) pair.confirmed = p.at("confirmed").get<bool>();
        pair.confirmation = WitnessFrom(p.at("confirmation"));
        result.pairs.push_back(std::move(pair));
      }
      f.races.push_back(std::move(result));
    }
    for (const json& d : j.at("deadlocks"))
      f.deadlocks.push_back({d.at("engine").get<std::string>(), GuaranteeFrom(d.at("guarantee")),
                             CycleFrom(d.at("cycle")), WitnessFrom(d.at("witness"))});
    for (const json& l : j.at("lock_order"))
      f.lock_order.push_back({l.at("engine").get<std::string>(), CycleFrom(l.at("cycle"))});
    f.atomicity = AtomicityFrom(j.at("atomicity"));
    f.atomicity_candidates = AtomicityFrom(j.at("atomicity_candidates"));
    for (const json& s : j.at("stats")) {
      AnalysisStats stats;
      stats.analysis = s.at("analysis").get<std::string>();
      for (const json& c : s.at("counters"))
        stats.counters.emplace_back(c.at(0).get<std::string>(), c.at(1).get<double>());
      f.stats.push_back(std::move(stats));
    }
    *out = std::move(f);
  } catch (const std::exception& e) {
    return Status::Corruption(std::string("findings: ") + e.what());
  }
  return Status::Ok();
}

std::string EncodePartial(const PartialResult& p) {
  json engines = json::array();
  for (const EnginePart& e : p.engines)
    engines.push_back({{"analysis", e.analysis}, {"findings", FindingsToJson(e.findings)}});
  json windowed = json::array();
  for (const WindowedPart& w : p.windowed) {
    json decided = json::array();
    for (const WindowResult& r : w.decided)
      decided.push_back({{"window", r.window},
                         {"budget", r.budget},
                         {"findings", FindingsToJson(r.found)},
                         {"stats", SeqCheckStatsJson(r.stats)}});
    windowed.push_back({{"analysis", w.analysis},
                        {"windows", w.windows},
                        {"max_checks", w.max_checks},
                        {"decided", std::move(decided)}});
  }
  const TraceIdentity& t = p.trace;
  json out = {{"format", kPartialFormat},
              {"version", kPartialVersion},
              {"trace",
               {{"path", t.path},
                {"size", t.size},
                {"mtime_ns", t.mtime_ns},
                {"events", t.events},
                {"chunks", t.chunks},
                {"start_time", t.start_time},
                {"host", t.host},
                {"complete", t.complete},
                {"digest", t.digest}}},
              {"analysis_list", p.analysis_list},
              {"analyses", p.analyses},
              {"options", OptionsJson(p.options)},
              {"shard", {{"index", p.shard.index}, {"count", p.shard.count}}},
              {"events", p.events},
              {"engines", std::move(engines)},
              {"windowed", std::move(windowed)}};
  return out.dump() + "\n";
}

Status DecodePartial(const std::string& name, const std::string& text, PartialResult* out) {
  const json j = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object())
    return Status::Corruption(name + ": not a partial analysis result (not JSON: a damaged or cut file?)");
  if (!j.contains("format") || j["format"] != kPartialFormat)
    return Status::Corruption(name + ": not a partial analysis result (no \"format\": \"" + kPartialFormat + "\")");
  if (!j.contains("version") || !j["version"].is_number_integer() || j["version"].get<int>() != kPartialVersion)
    return Status::NotSupported(name + ": a partial result of version " +
                                (j.contains("version") ? j["version"].dump() : std::string("(none)")) +
                                ", this seer reads version " + std::to_string(kPartialVersion));
  PartialResult p;
  try {
    const json& t = j.at("trace");
    p.trace.path = t.at("path").get<std::string>();
    p.trace.size = t.at("size").get<uint64_t>();
    p.trace.mtime_ns = t.at("mtime_ns").get<int64_t>();
    p.trace.events = t.at("events").get<uint64_t>();
    p.trace.chunks = t.at("chunks").get<uint64_t>();
    p.trace.start_time = t.at("start_time").get<std::string>();
    p.trace.host = t.at("host").get<std::string>();
    p.trace.complete = t.at("complete").get<bool>();
    p.trace.digest = t.at("digest").get<uint64_t>();
    p.analysis_list = j.at("analysis_list").get<std::string>();
    p.analyses = j.at("analyses").get<std::vector<std::string>>();
    p.options = OptionsFrom(j.at("options"));
    p.shard.index = j.at("shard").at("index").get<uint32_t>();
    p.shard.count = j.at("shard").at("count").get<uint32_t>();
    if (p.shard.count == 0 || p.shard.index >= p.shard.count)
      return Status::Corruption(name + ": shard " + std::to_string(p.shard.index) + "/" +
                                std::to_string(p.shard.count) + " is not a shard");
    p.events = j.at("events").get<uint64_t>();
    for (const json& e : j.at("engines")) {
      EnginePart part{e.at("analysis").get<std::string>(), Findings()};
      Status s = FindingsFromJson(e.at("findings"), &part.findings);
      if (!s.ok()) return Status::Corruption(name + ": " + part.analysis + ": " + s.message());
      p.engines.push_back(std::move(part));
    }
    for (const json& w : j.at("windowed")) {
      WindowedPart part;
      part.analysis = w.at("analysis").get<std::string>();
      part.windows = w.at("windows").get<uint64_t>();
      part.max_checks = w.at("max_checks").get<uint64_t>();
      for (const json& r : w.at("decided")) {
        WindowResult result;
        result.window = r.at("window").get<uint64_t>();
        result.budget = r.at("budget").get<uint64_t>();
        result.stats = SeqCheckStatsFrom(r.at("stats"));
        Status s = FindingsFromJson(r.at("findings"), &result.found);
        if (!s.ok())
          return Status::Corruption(name + ": " + part.analysis + " window " + std::to_string(result.window) + ": " +
                                    s.message());
        part.decided.push_back(std::move(result));
      }
      p.windowed.push_back(std::move(part));
    }
  } catch (const std::exception& e) {
    return Status::Corruption(name + ": a damaged partial result: " + e.what());
  }
  *out = std::move(p);
  return Status::Ok();
}

Status WritePartial(const std::string& path, const PartialResult& part) {
  const std::string text = EncodePartial(part);
  const std::string tmp = path + ".tmp";
  const int fd = open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) return Status::IOError(tmp + ": " + std::strerror(errno));
  size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      const int err = errno;
      close(fd);
      unlink(tmp.c_str());
      return Status::IOError(tmp + ": " + std::strerror(err));
    }
    done += static_cast<size_t>(n);
  }
  // Durable before it replaces anything: a merge on another node reads it next.
  const int synced = fsync(fd) == 0 ? 0 : errno;
  const int closed = close(fd) == 0 ? 0 : errno;
  if (synced != 0 || closed != 0) {
    const int err = synced != 0 ? synced : closed;
    unlink(tmp.c_str());
    return Status::IOError(tmp + ": " + std::strerror(err));
  }
  if (rename(tmp.c_str(), path.c_str()) != 0) {
    const int err = errno;
    unlink(tmp.c_str());
    return Status::IOError(path + ": " + std::strerror(err));
  }
  return Status::Ok();
}

Status ReadPartial(const std::string& path, PartialResult* out) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status::NotFound(path + ": " + std::strerror(errno));
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) return Status::IOError(path + ": read failed");
  return DecodePartial(path, text.str(), out);
}

}  // namespace seer::predictor
