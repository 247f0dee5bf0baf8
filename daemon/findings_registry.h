// Findings merged across windows: one entry per signature (the same kind,
// engine and source locations), with when it was first and last seen and in
// how many windows, so that a recurring bug is one finding. Thread-safe: the
// analysis thread adds, the HTTP threads read.
#pragma once

#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "daemon/window_analysis.h"

namespace seer::daemon {

struct MergedFinding {
  std::string id;         // 16 hex digits of a hash of the signature: stable across restarts
  FindingRecord latest;   // the record of the last window that had it
  std::string html;       // the HTML report of the first window that made one ("" until then)
  double first_seen = 0;  // window start, seconds since the epoch
  double last_seen = 0;
  uint64_t windows = 0;  // windows it was found in
};

class FindingsRegistry {
 public:
  // Adds the findings of one window that began at `window_start`.
  void Merge(const std::vector<FindingRecord>& records, double window_start);

  // Replaces every finding with `findings` (the state loaded at a start).
  void Restore(const std::vector<MergedFinding>& findings);

  std::vector<MergedFinding> All() const;  // by first seen
  bool Find(const std::string& id, MergedFinding* out) const;
  // True when the finding of `signature` is known and has its HTML report.
  bool HasHtml(const std::string& signature) const;
  // The signatures of the findings that have their HTML report.
  std::vector<std::string> SignaturesWithHtml() const;

  // {"findings": [{"id", "kind", "engine", "summary", "first_seen", "last_seen", "windows"}]}
  std::string Json() const;

  static std::string IdOf(const std::string& signature);

 private:
  mutable std::mutex mu_;
  std::map<std::string, MergedFinding> by_id_;
};

}  // namespace seer::daemon
