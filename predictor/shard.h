// An analysis cut into N parts (`seer analyze --shard I/N`), run anywhere (a
// Slurm job array: tools/slurm/), each writing a partial result
// (predictor/partial_file.h), and the merge of the parts into the findings one
// run would have found (`seer merge`). docs/analyses.md, "Shards", says how
// the work is split and why the merge is exact.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "predictor/analyze.h"
#include "predictor/engine.h"
#include "predictor/findings.h"
#include "predictor/seqcheck/stats.h"
#include "seer/status.h"
#include "seer/trace.h"

namespace seer::predictor {

struct ShardSpec {
  uint32_t index = 0;  // 0 .. count - 1
  uint32_t count = 1;
};
// "I/N" with 0 <= I < N; anything else is an InvalidArgument saying so.
Status ParseShard(const std::string& text, ShardSpec* out);

// Who runs what. The selected analyses that decide the trace as a whole (hb,
// wcp, ...), and the windowed ones whose windows one shard decides (deadlock:
// seqcheck::SpreadsWindowsOverShards), go round robin in selection order: the
// j-th of them is shard j mod N's. The windows of the other windowed ones
// (atomicity: the w-th of them) follow on round robin, each analysis's own
// from the next shard on: window k of the w-th is shard (whole + w + k) mod
// N's, `whole` the number of the others. So every shard has its share of each
// spread analysis's windows, whatever N.
uint32_t ShardOfAnalysis(uint64_t j, uint32_t count);
uint32_t ShardOfWindow(uint64_t whole, uint64_t w, uint64_t k, uint32_t count);

// What says that parts were made of one trace, and that the trace the merge
// reads is that one: what the reports print of it, and what changes when it
// is written again.
struct TraceIdentity {
  std::string path;  // as given to `seer analyze` (the reports print it)
  uint64_t size = 0;
  int64_t mtime_ns = 0;
  uint64_t events = 0;  // the trace's counters
  uint64_t chunks = 0;
  std::string start_time;  // meta start_time, host (empty in generated traces)
  std::string host;
  bool complete = false;
  // A digest of every event (EventDigest), which each shard computes as it
  // decodes: parts of a trace written again in between differ there, and a
  // copy the merge is given (--trace) is checked against it.
  uint64_t digest = 0;
};
// The identity of the trace at `path` whose reader gave `info`, but its digest.
Status IdentifyTrace(const std::string& path, const TraceInfo& info, TraceIdentity* out);

// Folds `n` events into a digest (start at 0): each field of each event, in order.
uint64_t EventDigest(uint64_t digest, const Event* events, size_t n);

// One window a shard decided, with the budget it was given: at least one run's
// (the checks all the windows before it use are not known there; shard.cc).
struct WindowResult {
  uint64_t window = 0;
  uint64_t budget = 0;
  Findings found;  // as decided, before the findings of earlier windows are set aside
  seqcheck::SeqCheckStats stats;
};

struct WindowedPart {
  std::string analysis;
  uint64_t windows = 0;               // how many the trace makes (every shard counts them all)
  uint64_t max_checks = 0;            // the engine's budget over the whole trace
  std::vector<WindowResult> decided;  // this shard's windows, in window order
};

struct EnginePart {
  std::string analysis;
  Findings findings;
};

struct PartialResult {
  TraceIdentity trace;
  std::string analysis_list;          // --analysis as given ("": the default set)
  std::vector<std::string> analyses;  // the selected analyses, in order
  AnalysisOptions options;            // jobs and window_hook aside: they change no finding
  ShardSpec shard;
  uint64_t events = 0;                 // events the trace fed
  std::vector<EnginePart> engines;     // the whole-trace analyses this shard ran
  std::vector<WindowedPart> windowed;  // every windowed analysis, this shard's windows
};

// Runs shard `shard` of `specs` (SelectEnginesFor's choice for `analysis_list`)
// over the trace at `path`. --confirm-races is refused: it needs every race
// engine's pairs and the whole trace at once.
Status RunShard(const std::string& path, const std::string& analysis_list, const std::vector<const EngineSpec*>& specs,
                const AnalysisOptions& options, ShardSpec shard, PartialResult* out,
                AnalysisProgress* progress = nullptr);

// Checks that `parts` are the N parts of one analysis (same trace, analyses and
// options, each shard once) and joins them into the findings one run with
// their options would have found, with run->reader open on the trace: at
// `trace_path`, or the path the parts name when it is empty (then its
// modification time must be theirs too). A window whose budget the windows
// before it used up is decided again from the trace (rare: near the end of
// the budget). `names` are the parts' sources, for messages; *decided_again,
// if given, counts the windows decided again from the trace.
Status MergeParts(const std::vector<PartialResult>& parts, const std::vector<std::string>& names,
                  const std::string& trace_path, AnalysisRun* run, uint64_t* decided_again = nullptr);

}  // namespace seer::predictor
