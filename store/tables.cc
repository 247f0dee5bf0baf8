#include "store/tables.h"

#include <nlohmann/json.hpp>

#include "store/coding.h"

namespace seer {

using nlohmann::json;

uint64_t TraceCounters::TotalLost() const {
  uint64_t total = 0;
  for (const auto& [where, counts] : lost)
    for (uint64_t n : counts) total += n;
  return total;
}

std::string EncodeThread(const ThreadInfo& t) {
  return json{{"tid", t.tid}, {"os_tid", t.os_tid}, {"parent", t.parent}, {"name", t.name}}.dump();
}

Status DecodeThread(const std::string& s, ThreadInfo* t) {
  json j = json::parse(s, nullptr, /*allow_exceptions=*/false);
  if (!j.is_object() || !j.contains("tid") || !j["tid"].is_number_unsigned())
    return Status::Corruption("bad thread record");
  t->tid = j["tid"].get<uint32_t>();
  t->os_tid = j.value("os_tid", int64_t{-1});
  t->parent = j.value("parent", int64_t{-1});
  t->name = j.value("name", std::string());
  return Status::Ok();
}

std::string EncodeModule(const ModuleInfo& m) {
  return json{{"path", m.path}, {"build_id", m.build_id}, {"base", m.base}, {"size", m.size},
              {"file_offset", m.file_offset}}
      .dump();
}

Status DecodeModule(const std::string& s, ModuleInfo* m) {
  json j = json::parse(s, nullptr, false);
  if (!j.is_object() || !j.contains("path")) return Status::Corruption("bad module record");
  m->path = j.value("path", std::string());
  m->build_id = j.value("build_id", std::string());
  m->base = j.value("base", uint64_t{0});
  m->size = j.value("size", uint64_t{0});
  m->file_offset = j.value("file_offset", uint64_t{0});
  return Status::Ok();
}

std::string EncodeCounters(const TraceCounters& c) {
  json by_kind = json::object();
  for (int k = 0; k < kNumEventKinds; ++k)
    if (c.by_kind[k]) by_kind[std::string(EventKindName(static_cast<EventKind>(k)))] = c.by_kind[k];
  json lost = json::object();
  for (const auto& [where, counts] : c.lost) {
    json per_kind = json::object();
    for (int k = 0; k < kNumEventKinds; ++k)
      if (counts[k]) per_kind[std::string(EventKindName(static_cast<EventKind>(k)))] = counts[k];
    lost[where] = per_kind;
  }
  return json{{"events", c.events},
              {"by_kind", by_kind},
              {"lost", lost},
              {"distinct_threads", c.distinct_threads},
              {"distinct_locks", c.distinct_locks},
              {"distinct_variables", c.distinct_variables},
              {"distinct_locations", c.distinct_locations}}
      .dump();
}

Status DecodeCounters(const std::string& s, TraceCounters* c) {
  json j = json::parse(s, nullptr, false);
  if (!j.is_object()) return Status::Corruption("bad counters record");
  *c = TraceCounters();
  auto kinds = [](const json& obj, std::array<uint64_t, kNumEventKinds>* out) -> Status {
    if (!obj.is_object()) return Status::Corruption("bad counters record");
    for (const auto& [name, n] : obj.items()) {
      auto kind = EventKindFromName(name);
      if (!kind || !n.is_number_unsigned()) return Status::Corruption("bad counter '" + name + "'");
      (*out)[static_cast<int>(*kind)] = n.get<uint64_t>();
    }
    return Status::Ok();
  };
  c->events = j.value("events", uint64_t{0});
  if (j.contains("by_kind")) {
    Status st = kinds(j["by_kind"], &c->by_kind);
    if (!st.ok()) return st;
  }
  if (j.contains("lost") && j["lost"].is_object()) {
    for (const auto& [where, per_kind] : j["lost"].items()) {
      Status st = kinds(per_kind, &c->lost[where]);
      if (!st.ok()) return st;
    }
  }
  c->distinct_threads = j.value("distinct_threads", uint64_t{0});
  c->distinct_locks = j.value("distinct_locks", uint64_t{0});
  c->distinct_variables = j.value("distinct_variables", uint64_t{0});
  c->distinct_locations = j.value("distinct_locations", uint64_t{0});
  return Status::Ok();
}

std::string NameKey(Namespace ns, uint64_t id) {
  return std::string(1, static_cast<char>(ns)) + coding::BigEndianKey(id);
}

}  // namespace seer
