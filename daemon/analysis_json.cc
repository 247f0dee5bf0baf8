#include "daemon/analysis_json.h"

#include <string>

namespace seer::daemon {

namespace {

using nlohmann::json;

// The typed reads below check before they convert: nlohmann's get<> throws on
// a wrong type, and a damaged file must give a Status, not an exception.
Status Field(const json& j, const char* key, json::value_t type, const json** out) {
  if (!j.is_object()) return Status::Corruption(std::string("expected an object holding '") + key + "'");
  auto it = j.find(key);
  if (it == j.end()) return Status::Corruption(std::string("'") + key + "' is missing");
  const bool number = type == json::value_t::number_unsigned || type == json::value_t::number_float;
  const bool fits =
      number ? (type == json::value_t::number_float ? it->is_number() : it->is_number_unsigned()) : it->type() == type;
  if (!fits) return Status::Corruption(std::string("'") + key + "' has the wrong type");
  *out = &*it;
  return Status::Ok();
}

Status String(const json& j, const char* key, std::string* out) {
  const json* v;
  Status st = Field(j, key, json::value_t::string, &v);
  if (st.ok()) *out = v->get<std::string>();
  return st;
}

Status Unsigned(const json& j, const char* key, uint64_t* out) {
  const json* v;
  Status st = Field(j, key, json::value_t::number_unsigned, &v);
  if (st.ok()) *out = v->get<uint64_t>();
  return st;
}

Status Double(const json& j, const char* key, double* out) {
  const json* v;
  Status st = Field(j, key, json::value_t::number_float, &v);
  if (st.ok()) *out = v->get<double>();
  return st;
}

Status Array(const json& j, const char* key, const json** out) { return Field(j, key, json::value_t::array, out); }

Status BucketsFromJson(const json& j, const char* key, Buckets* out) {
  const json* v;
  Status st = Array(j, key, &v);
  if (!st.ok()) return st;
  if (v->size() != out->size()) return Status::Corruption(std::string("'") + key + "' has the wrong length");
  for (size_t i = 0; i < out->size(); ++i) {
    if (!(*v)[i].is_number_unsigned()) return Status::Corruption(std::string("'") + key + "' holds a non-count");
    (*out)[i] = (*v)[i].get<uint64_t>();
  }
  return Status::Ok();
}

json ContentionToJson(const ContentionRecord& c) {
  return {{"lock", c.lock},
          {"site", c.site},
          {"acquisitions", c.stats.acquisitions},
          {"contended", c.stats.contended},
          {"wait_seconds", c.stats.wait_seconds},
          {"buckets", c.stats.buckets},
          {"held", c.stats.held},
          {"hold_seconds", c.stats.hold_seconds},
          {"hold_buckets", c.stats.hold_buckets}};
}

Status ContentionFromJson(const json& j, ContentionRecord* c) {
  Status st = String(j, "lock", &c->lock);
  if (st.ok()) st = String(j, "site", &c->site);
  if (st.ok()) st = Unsigned(j, "acquisitions", &c->stats.acquisitions);
  if (st.ok()) st = Unsigned(j, "contended", &c->stats.contended);
  if (st.ok()) st = Double(j, "wait_seconds", &c->stats.wait_seconds);
  if (st.ok()) st = BucketsFromJson(j, "buckets", &c->stats.buckets);
  if (st.ok()) st = Unsigned(j, "held", &c->stats.held);
  if (st.ok()) st = Double(j, "hold_seconds", &c->stats.hold_seconds);
  if (st.ok()) st = BucketsFromJson(j, "hold_buckets", &c->stats.hold_buckets);
  return st;
}

}  // namespace

std::string DumpJson(const json& j, int indent) { return j.dump(indent, ' ', false, json::error_handler_t::replace); }

json FindingToJson(const FindingRecord& f) {
  return {{"signature", f.signature}, {"kind", f.kind},     {"engine", f.engine},
          {"summary", f.summary},     {"report", f.report}, {"html", f.html}};
}

Status FindingFromJson(const json& j, FindingRecord* out) {
  Status st = String(j, "signature", &out->signature);
  if (st.ok()) st = String(j, "kind", &out->kind);
  if (st.ok()) st = String(j, "engine", &out->engine);
  if (st.ok()) st = String(j, "summary", &out->summary);
  if (st.ok()) st = String(j, "report", &out->report);
  if (st.ok()) st = String(j, "html", &out->html);
  return st;
}

json AnalysisToJson(const WindowAnalysis& a) {
  json findings = json::array();
  for (const FindingRecord& f : a.findings) findings.push_back(FindingToJson(f));
  json contention = json::array();
  for (const ContentionRecord& c : a.contention) contention.push_back(ContentionToJson(c));
  return {{"events", a.events},
          {"by_kind", a.by_kind},
          {"lost", a.lost},
          {"findings", findings},
          {"contention", contention}};
}

Status AnalysisFromJson(const json& j, WindowAnalysis* out) {
  *out = WindowAnalysis();
  Status st = Unsigned(j, "events", &out->events);
  if (st.ok()) st = Unsigned(j, "lost", &out->lost);
  const json* by_kind;
  if (st.ok()) st = Array(j, "by_kind", &by_kind);
  if (!st.ok()) return st;
  if (by_kind->size() != out->by_kind.size()) return Status::Corruption("'by_kind' has the wrong length");
  for (size_t k = 0; k < out->by_kind.size(); ++k) {
    if (!(*by_kind)[k].is_number_unsigned()) return Status::Corruption("'by_kind' holds a non-count");
    out->by_kind[k] = (*by_kind)[k].get<uint64_t>();
  }
  const json* findings;
  st = Array(j, "findings", &findings);
  for (size_t i = 0; st.ok() && i < findings->size(); ++i) {
    out->findings.emplace_back();
    st = FindingFromJson((*findings)[i], &out->findings.back()).WithContext("finding " + std::to_string(i));
  }
  const json* contention;
  if (st.ok()) st = Array(j, "contention", &contention);
  for (size_t i = 0; st.ok() && i < contention->size(); ++i) {
    out->contention.emplace_back();
    st = ContentionFromJson((*contention)[i], &out->contention.back()).WithContext("contention " + std::to_string(i));
  }
  return st;
}

}  // namespace seer::daemon
