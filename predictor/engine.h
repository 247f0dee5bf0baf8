// The one interface every analysis implements. The driver decodes the trace once
// and feeds each batch of events, in total order, to every selected engine; at the
// end each engine adds its findings. An engine touches nothing outside itself.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "predictor/findings.h"
#include "predictor/progress.h"
#include "predictor/seqcheck/stats.h"
#include "seer/event.h"
#include "seer/status.h"
#include "seer/trace.h"

namespace seer::predictor {

// How a run decides the SeqCheck windows of the windowed engines (deadlock,
// atomicity) when it is one part of an analysis (`seer analyze --shard`,
// predictor/shard.h) or the merge of parts: it decides only some windows, each
// with the checks it is told, and hands each result here instead of joining
// them into the engine's findings (the merge joins them, as the engine would).
class WindowHook {
 public:
  virtual ~WindowHook() = default;
  // Before window `k` of `engine` fills: whether this run decides it, and with
  // how many feasibility checks (`whole`: the engine's budget over the whole
  // trace). A window not decided is not kept in memory.
  virtual bool Decides(const std::string& engine, uint64_t k, uint64_t whole, uint64_t* budget) = 0;
  // A window it decides, in window order.
  virtual void Decided(const std::string& engine, uint64_t k, uint64_t budget, Findings found,
                       const seqcheck::SeqCheckStats& stats) = 0;
  // At the engine's Finish: how many windows the trace made.
  virtual void Windows(const std::string& engine, uint64_t count) = 0;
};

// Options the user can set for analyses; engines read the ones they know.
struct AnalysisOptions {
  uint64_t atomicity_window = 1000;  // max events between the two local accesses
  bool confirm_races = false;        // SeqCheck re-checks the race engines' pairs
  // --confirm-races keeps the whole trace and builds one SeqCheck model of it
  // (40 bytes an event kept, 0.2 to 1.3 KB an event modelled): a longer trace
  // is refused before the pass rather than run out of memory.
  uint64_t confirm_races_max_events = uint64_t{1} << 23;
  uint64_t w3_history = 1000;  // bound of w3-linear's per-lock history
  uint64_t w3_edges = 25;      // w3-linear: accesses per variable whose edges it keeps
  // w3, w3-linear: bytes of the readers' places in the lock histories, kept
  // to find them again quickly (a speed-up only: reports do not depend on it).
  uint64_t w3_position_cache_bytes = uint64_t{64} << 20;
  // wcp: bytes of queued critical sections over which a lock's queue is folded
  // (docs/analyses.md, "wcp"); folding may miss races and the report says so.
  uint64_t wcp_queue_bytes = uint64_t{512} << 20;
  // Race engines reproduce RAPID's counts where its implementation departs from
  // the papers (wcp, lockset; docs/analyses.md); false follows the papers.
  bool rapid_compatible = true;
  uint32_t deadlock_max_cycle = 8;       // deadlock: most threads (= locks) in a cycle
  uint64_t deadlock_max_checks = 20000;  // deadlock: SeqCheck checks over the whole trace
  // deadlock, atomicity: events SeqCheck holds and reorders at once (180 bytes
  // each on a recorded lock-heavy trace, 1.3 KB on random nested locking); a
  // longer trace is decided window by window (0: one window).
  uint64_t seqcheck_window = 1u << 20;
  // Threads that run the engines (--jobs): 1 runs them one after another on
  // the calling thread; more run the engines side by side over one decode,
  // and SeqCheck's windows in parallel (docs/analyses.md, "Jobs"). Findings do
  // not depend on it.
  unsigned jobs = 1;
  // Set by a sharded run or a merge (predictor/shard.h), never by users: the
  // windowed engines decide the windows it says (null: all of them, joined).
  WindowHook* window_hook = nullptr;
};

class JobPool;

class Engine {
 public:
  virtual ~Engine() = default;

  // Called once, before any event, with the trace's tables.
  virtual Status Begin(const TraceInfo& info) {
    (void)info;
    return Status::Ok();
  }
  // With more than one job, called before Begin: the engine may run parts of
  // its work that do not depend on one another (SeqCheck's windows) as tasks
  // of `jobs`, provided its findings stay those of a run without it. Begin,
  // Process and Finish are still called in order, one at a time.
  virtual void UseJobs(JobPool* jobs) { (void)jobs; }
  // Called before Begin when someone watches: an engine with work of its own
  // after the events (SeqCheck's windows) says how far it is there.
  virtual void ShowProgress(AnalysisProgress* progress) { (void)progress; }
  // Consumes the next `n` events of the total order.
  virtual void Process(const Event* events, size_t n) = 0;
  // Called once after the last event: adds this engine's findings.
  virtual Status Finish(Findings* findings) = 0;
};

// The catalogue of analyses, in predictor/registry.cc: one entry per engine.
struct EngineSpec {
  std::string name;     // as given to --analysis
  std::string summary;  // one line for --help and docs
  bool in_default_set;
  std::unique_ptr<Engine> (*create)(const AnalysisOptions& options);
  // The CPU its pass over the trace takes per event, relative to the others
  // (about CPU seconds per 100M events of bench/jobs_speed.sh's recorded
  // trace): with --jobs, the heaviest passes go to different threads
  // (PlaceLanes). 0: a light pass whose work goes to any thread (SeqCheck's
  // windows). Only a placement: the report never depends on it.
  double lane_cost = 1;
};
const std::vector<EngineSpec>& Engines();
const EngineSpec* FindEngine(const std::string& name);

}  // namespace seer::predictor
