// The SeqCheck analyses behind the Engine interface: `deadlock` and `atomicity`.
// SeqCheck reorders what it holds in memory, so both keep the events of a window
// (AnalysisOptions::seqcheck_window; trace_windows.h) and decide it as it closes.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "predictor/engine.h"
#include "predictor/seqcheck/stats.h"

namespace seer::predictor::seqcheck {

std::unique_ptr<Engine> NewDeadlockEngine(const AnalysisOptions& options);
std::unique_ptr<Engine> NewAtomicityEngine(const AnalysisOptions& options);

// Whether the analysis `name` decides the trace window by window (the two above).
bool IsWindowedEngine(const std::string& name);

// How a windowed engine joins its decided windows into its findings: given the
// windows in window order, it keeps a finding the first time it is seen, and
// at the end adds those and the counters. The engine uses it, and so does the
// merge of shards (predictor/shard.h), so both join alike.
class WindowJoiner {
 public:
  virtual ~WindowJoiner() = default;
  // A decided window's findings (moved from), in window order.
  virtual void Keep(Findings* found) = 0;
  // The kept findings and the counters of `windows` windows whose work was `stats`.
  virtual void AddFindings(const SeqCheckStats& stats, uint64_t windows, Findings* findings) = 0;
};
// The joiner of the windowed engine `name`; null for another name.
std::unique_ptr<WindowJoiner> NewWindowJoiner(const std::string& name);

// Adds one window's counters to a sum.
void AddSeqCheckStats(const SeqCheckStats& from, SeqCheckStats* to);

}  // namespace seer::predictor::seqcheck
