#include "daemon/findings_registry.h"

#include <fmt/format.h>

#include <algorithm>

#include <nlohmann/json.hpp>

#include "daemon/analysis_json.h"
#include "daemon/clock.h"
#include "recorder/trace_metadata.h"

namespace seer::daemon {

std::string FindingsRegistry::IdOf(const std::string& signature) {
  // FNV-1a: the same signature gets the same id in every process and build
  // (std::hash promises neither).
  uint64_t h = 0xcbf29ce484222325ull;
  for (unsigned char c : signature) {
    h ^= c;
    h *= 0x100000001b3ull;
  }
  return fmt::format("{:016x}", h);
}

void FindingsRegistry::Merge(const std::vector<FindingRecord>& records, double window_start) {
  std::lock_guard<std::mutex> lock(mu_);
  std::map<std::string, bool> seen_here;  // a finding counts once per window
  for (const FindingRecord& r : records) {
    const std::string id = IdOf(r.signature);
    auto [it, fresh] = by_id_.try_emplace(id);
    MergedFinding& m = it->second;
    if (fresh) {
      m.id = id;
      m.first_seen = window_start;
    }
    m.latest = r;
    // One page per finding is enough: the record keeps it only until here.
    if (m.html.empty()) m.html = std::move(m.latest.html);
    m.latest.html.clear();
    m.first_seen = std::min(m.first_seen, window_start);
    m.last_seen = std::max(m.last_seen, window_start);
    if (!seen_here[id]) m.windows++;
    seen_here[id] = true;
  }
}

void FindingsRegistry::Restore(const std::vector<MergedFinding>& findings) {
  std::lock_guard<std::mutex> lock(mu_);
  by_id_.clear();
  for (const MergedFinding& m : findings) by_id_[m.id] = m;
}

std::vector<MergedFinding> FindingsRegistry::All() const {
  std::vector<MergedFinding> all;
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (const auto& [id, m] : by_id_) all.push_back(m);
  }
  std::stable_sort(all.begin(), all.end(),
                   [](const MergedFinding& a, const MergedFinding& b) { return a.first_seen < b.first_seen; });
  return all;
}

bool FindingsRegistry::Find(const std::string& id, MergedFinding* out) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = by_id_.find(id);
  if (it == by_id_.end()) return false;
  *out = it->second;
  return true;
}

bool FindingsRegistry::HasHtml(const std::string& signature) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = by_id_.find(IdOf(signature));
  return it != by_id_.end() && !it->second.html.empty();
}

std::vector<std::string> FindingsRegistry::SignaturesWithHtml() const {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<std::string> out;
  for (const auto& [id, m] : by_id_)
    if (!m.html.empty()) out.push_back(m.latest.signature);
  return out;
}

std::string FindingsRegistry::Json() const {
  nlohmann::json list = nlohmann::json::array();
  for (const MergedFinding& m : All()) {
    list.push_back({{"id", m.id},
                    {"kind", m.latest.kind},
                    {"engine", m.latest.engine},
                    {"summary", m.latest.summary},
                    {"signature", m.latest.signature},
                    {"first_seen", recorder::IsoTime(m.first_seen)},
                    {"last_seen", recorder::IsoTime(m.last_seen)},
                    {"windows", m.windows}});
  }
  return DumpJson(nlohmann::json{{"findings", list}}, 2) + "\n";
}

}  // namespace seer::daemon
