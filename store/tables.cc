#include "store/tables.h"

#include <nlohmann/json.hpp>

#include "store/coding.h"

namespace seer::store {

using nlohmann::json;

namespace {

// Typed field reads that never throw: a record from a damaged file may hold any
// JSON, and json::value() throws on a type it cannot convert. An absent field
// keeps *out; a present one of the wrong type or range is false.
bool GetUnsigned(const json& j, const char* key, uint64_t* out) {
  auto it = j.find(key);
  if (it == j.end()) return true;
  if (!it->is_number_unsigned()) return false;
  *out = it->get<uint64_t>();
  return true;
}

bool GetSigned(const json& j, const char* key, int64_t* out) {
  auto it = j.find(key);
  if (it == j.end()) return true;
  if (it->is_number_unsigned()) {
    if (it->get<uint64_t>() > static_cast<uint64_t>(INT64_MAX)) return false;
  } else if (!it->is_number_integer()) {
    return false;
  }
  *out = it->get<int64_t>();
  return true;
}

bool GetString(const json& j, const char* key, std::string* out) {
  auto it = j.find(key);
  if (it == j.end()) return true;
  if (!it->is_string()) return false;
  *out = it->get<std::string>();
  return true;
}

}  // namespace

std::string EncodeThread(const ThreadInfo& t) {
  return json{{"tid", t.tid}, {"os_tid", t.os_tid}, {"parent", t.parent}, {"name", t.name}}.dump();
}

Status DecodeThread(const std::string& s, ThreadInfo* t) {
  json j = json::parse(s, nullptr, /*allow_exceptions=*/false);
  uint64_t tid = UINT64_MAX;
  *t = ThreadInfo();
  if (!j.is_object() || !GetUnsigned(j, "tid", &tid) || tid > UINT32_MAX || !GetSigned(j, "os_tid", &t->os_tid) ||
      !GetSigned(j, "parent", &t->parent) || !GetString(j, "name", &t->name))
    return Status::Corruption("bad thread record");
  t->tid = static_cast<uint32_t>(tid);
  return Status::Ok();
}

std::string EncodeModule(const ModuleInfo& m) {
  return json{
      {"path", m.path}, {"build_id", m.build_id}, {"base", m.base}, {"size", m.size}, {"file_offset", m.file_offset}}
      .dump();
}

Status DecodeModule(const std::string& s, ModuleInfo* m) {
  json j = json::parse(s, nullptr, false);
  *m = ModuleInfo();
  if (!j.is_object() || !j.contains("path") || !GetString(j, "path", &m->path) ||
      !GetString(j, "build_id", &m->build_id) || !GetUnsigned(j, "base", &m->base) ||
      !GetUnsigned(j, "size", &m->size) || !GetUnsigned(j, "file_offset", &m->file_offset))
    return Status::Corruption("bad module record");
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
      if (!kind || !n.is_number_unsigned()) return Status::Corruption("bad counter '" + Printable(name) + "'");
      (*out)[static_cast<int>(*kind)] = n.get<uint64_t>();
    }
    return Status::Ok();
  };
  if (!GetUnsigned(j, "events", &c->events)) return Status::Corruption("bad counters record");
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
  if (!GetUnsigned(j, "distinct_threads", &c->distinct_threads) ||
      !GetUnsigned(j, "distinct_locks", &c->distinct_locks) ||
      !GetUnsigned(j, "distinct_variables", &c->distinct_variables) ||
      !GetUnsigned(j, "distinct_locations", &c->distinct_locations))
    return Status::Corruption("bad counters record");
  return Status::Ok();
}

uint64_t TableRecordHash(std::string_view table, std::string_view key, std::string_view value) {
  // FNV-1a over the three fields and their lengths, then a 64-bit finaliser
  // (splitmix64's) so that the sum of many hashes stays well mixed.
  uint64_t h = 0xcbf29ce484222325ull;
  auto add = [&h](std::string_view s) {
    for (unsigned char c : s) h = (h ^ c) * 0x100000001b3ull;
    for (int i = 0; i < 8; ++i) h = (h ^ ((s.size() >> (8 * i)) & 0xff)) * 0x100000001b3ull;
  };
  add(table);
  add(key);
  add(value);
  h = (h ^ (h >> 30)) * 0xbf58476d1ce4e5b9ull;
  h = (h ^ (h >> 27)) * 0x94d049bb133111ebull;
  return h ^ (h >> 31);
}

std::string FormatTablesChecksum(uint64_t sum) {
  static const char kHex[] = "0123456789abcdef";
  std::string out(16, '0');
  for (int i = 15; i >= 0; --i, sum >>= 4) out[i] = kHex[sum & 0xf];
  return out;
}

bool ParseTablesChecksum(const std::string& text, uint64_t* sum) {
  if (text.size() != 16) return false;
  uint64_t v = 0;
  for (char c : text) {
    int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
    if (d < 0) return false;
    v = v << 4 | static_cast<uint64_t>(d);
  }
  *sum = v;
  return true;
}

std::string Printable(std::string_view s) {
  std::string out(s.substr(0, 200));
  for (char& c : out)
    if (c < 0x20 || c > 0x7e) c = '?';
  return out;
}

std::string NameKey(Namespace ns, uint64_t id) {
  return std::string(1, static_cast<char>(ns)) + coding::BigEndianKey(id);
}

}  // namespace seer::store

// Declared with TraceCounters in seer/trace.h.
namespace seer {

uint64_t TraceCounters::TotalLost() const {
  uint64_t total = 0;
  for (const auto& [where, counts] : lost)
    for (uint64_t n : counts) total += n;
  return total;
}

}  // namespace seer
