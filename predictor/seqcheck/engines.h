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

// Whether the windows of the windowed analysis `name` are spread over the
// shards of `seer analyze --shard` (predictor/shard.h), or all decided by one.
// A window's checks are what the windows before it left of the analysis's
// budget, which a shard without those windows cannot know: it decides its
// first window on the whole budget. deadlock's (--deadlock-max-checks, 20,000
// by default) is spent within the first window of a trace with lock cycles and
// millions of events, so every shard spent it again on a window that one run
// never decides (on issue #33's 10M-event trace, 4 shards took 2.6 CPU s of
// deadlock where one run takes 0.9); decided by one shard, its windows cost
// what one run's do. atomicity's budget (1,048,576 checks) lasts: spread.
bool SpreadsWindowsOverShards(const std::string& name);

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
