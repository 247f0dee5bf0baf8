// What the service learns from one closed window: its events by kind and
// losses, the findings of the selected analyses (each with a signature stable
// across windows and runs: its kind, engine and source locations), and lock
// contention per lock and call site (the hottest pairs, the rest folded per
// site: lock_contention.h), with names and sites symbolised.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "daemon/lock_contention.h"
#include "predictor/engine.h"
#include "seer/event.h"
#include "seer/status.h"

namespace seer::daemon {

struct FindingRecord {
  std::string signature;  // kind, engine and the sorted source locations
  std::string kind;       // "deadlock", "race", "atomicity"
  std::string engine;
  std::string summary;  // one line
  std::string report;   // the text report of this finding alone
  std::string html;     // its HTML report (predictor/report), when AnalyzeWindow was asked for it
};

struct ContentionRecord {
  std::string lock;  // the lock's name (a global's name, or its address)
  std::string site;  // "function file:line" of the acquire, or its pc
  ContentionStats stats;
};

struct WindowAnalysis {
  uint64_t events = 0;
  std::array<uint64_t, kNumEventKinds> by_kind{};
  uint64_t lost = 0;
  std::vector<FindingRecord> findings;
  std::vector<ContentionRecord> contention;
};

// Says, by its signature, whether a finding needs its HTML report: making one
// reads the window again, so the service asks only for findings it has none for.
using WantsHtml = std::function<bool(const std::string& signature)>;

// Analyses the window trace at `path` with `engines`, counting the contention
// in the same pass. Errors: the trace cannot be read (named in the status).
Status AnalyzeWindow(const std::string& path, const std::vector<const predictor::EngineSpec*>& engines,
                     WindowAnalysis* out, const WantsHtml& wants_html = nullptr);

}  // namespace seer::daemon
