// The catalogue of analyses. Adding an engine is adding one entry here; no other
// engine and no driver code changes. The last number of each is its lane_cost
// (predictor/engine.h): measured with `seer analyze --jobs 1 -a NAME` on
// bench/jobs_speed.sh's recorded trace (132M events), and on a tenth of it for
// the engines outside the default set.
#include "predictor/engine.h"
#include "predictor/engines/atomic_blocks/atomic_blocks_engine.h"
#include "predictor/engines/blocked/blocked_engine.h"
#include "predictor/engines/cp/cp_engine.h"
#include "predictor/engines/hb/hb_engine.h"
#include "predictor/engines/lock_order/lock_order_engine.h"
#include "predictor/engines/lockset/lockset_engine.h"
#include "predictor/engines/shb/shb_engine.h"
#include "predictor/engines/w3/w3_engine.h"
#include "predictor/engines/watch/watch_engine.h"
#include "predictor/engines/wcp/wcp_engine.h"
#include "predictor/seqcheck/engines.h"

namespace seer::predictor {

const std::vector<EngineSpec>& Engines() {
  static const std::vector<EngineSpec> engines = {
      {"hb", "happens-before races (vector clocks, FastTrack epochs); the first race is real", true, NewHbEngine, 3},
      {"shb", "schedulable happens-before: HB plus last-write-to-read edges; every race is real", true, NewShbEngine,
       4},
      {"wcp", "weak causally-precedes (Kini et al. PLDI'17): more races than HB; the first is real or a deadlock", true,
       NewWcpEngine, 15},
      // Exact over the whole trace, but a late edge visits every lock and signal
      // object and a failed check may wait for an open section: not default.
      {"cp", "causally-precedes (Smaragdakis et al. POPL'12), online and exact as Raptor: between HB and WCP", false,
       NewCpEngine, 21},
      {"lockset", "Eraser-style lockset discipline (as RAPID's LockSet): fast, neither sound nor complete", true,
       NewLocksetEngine, 5},
      // The exact w3 keeps every access and critical section until the end (quadratic
      // worst case), so the default set runs the linear variant only.
      {"w3", "Lockset-W3 (PWR), exact two-pass: complete; sound for two threads", false, CreateW3Engine, 64},
      {"w3-linear", "Lockset-W3 (PWR), linear time: bounded history, complete within the bounds", true,
       CreateW3LinearEngine, 31},
      {"deadlock", "SeqCheck: predicted deadlocks of any number of threads, each with a validated witness schedule",
       true, seqcheck::NewDeadlockEngine, 0},
      // The locks each thread holds and waits for, and a walk of the wait-for graph at the end.
      {"blocked", "deadlocks that happened: threads left waiting for the locks the others hold when the run ended",
       true, NewBlockedEngine, 1},
      // A walk of the lock graph at the end: as cheap as the deadlock engine's first step.
      {"lock-order", "lock-order inversions (locks taken in cyclic orders, one thread included), as TSan reports them",
       true, NewLockOrderEngine, 1},
      {"atomicity", "SeqCheck: predicted atomicity violations (rwr, wwr, rww, wrw), each with a validated witness",
       true, seqcheck::NewAtomicityEngine, 0},
      // Added to the default set for the traces of `seer record --watch` only
      // (SelectEnginesFor): other traces hold nothing for it.
      {"watch", "races caught in the act by watchpoints (seer record --watch): real by construction", false,
       NewWatchEngine, 1},
      // A graph search per conflict into an open block: quadratic in the worst case.
      {"atomic-blocks", "conflict serializability of marked atomic blocks (begin/end) in the recorded run", false,
       NewAtomicBlocksEngine, 25},
  };
  return engines;
}

const EngineSpec* FindEngine(const std::string& name) {
  for (const auto& spec : Engines())
    if (spec.name == name) return &spec;
  return nullptr;
}

}  // namespace seer::predictor
