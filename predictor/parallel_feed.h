// The driver's side of --jobs: every engine is a lane that works through the
// decoded batches in trace order, one batch at a time, on a thread of a JobPool
// of its own (PlaceLanes), while the lanes run side
// by side; work an engine hands to the pool (SeqCheck's windows) goes to any. Batches are shared
// read-only by the lanes and freed when the last lane is done with them; the
// decoder waits while too many events are in flight, which bounds memory.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <vector>

#include "predictor/common/job_pool.h"
#include "predictor/engine.h"
#include "predictor/findings.h"
#include "seer/event.h"
#include "seer/status.h"

namespace seer::predictor {

using SharedBatch = std::shared_ptr<const std::vector<Event>>;

// The pool thread of each lane, given the lanes' costs (EngineSpec::lane_cost):
// the costliest first, each on the thread with the least cost so far (the
// lowest such thread), so that the heavy passes run side by side; lanes of
// equal cost keep their order. Round robin over the threads, whatever their
// cost, put wcp and w3-linear on one thread of two, and that thread bounded
// the wall time (docs/analyses.md, "Jobs").
std::vector<int> PlaceLanes(const std::vector<double>& costs, unsigned threads);

class ParallelFeed {
 public:
  // `engines` have had Begin; `max_events`: decoded events held at most (the
  // batch being handed over may add one batch to it).
  // `costs`: each engine's lane_cost (predictor/engine.h), for PlaceLanes.
  ParallelFeed(JobPool* pool, const std::vector<Engine*>& engines, const std::vector<double>& costs, size_t max_events);
  // Stops the lanes (without Finish) if Finish was not called.
  ~ParallelFeed();
  ParallelFeed(const ParallelFeed&) = delete;
  ParallelFeed& operator=(const ParallelFeed&) = delete;

  // A vector to decode the next batch into: a freed batch's, whose memory is
  // already mapped (a batch is megabytes: fresh memory costs page faults).
  std::vector<Event> Spare();
  // A batch the lanes can share; it counts as in flight until the last lane
  // (and the caller) let it go.
  SharedBatch Share(std::vector<Event> events);
  // Hands `batch` to every lane; first waits while `max_events` are in flight.
  void Push(const SharedBatch& batch);
  // Events every lane has processed (the slowest lane's count).
  uint64_t processed() const;
  // Has every engine Finish into a Findings of its own, waits for all, and
  // hands them over in engine order (*each: one per engine; appended one
  // after another they are what one thread would have found). *failed is the
  // first engine (in order) whose Finish failed. `waiting`, if set, gets
  // processed() about five times a second meanwhile.
  Status Finish(std::vector<Findings>* each, size_t* failed,
                const std::function<void(uint64_t processed)>& waiting = {});

 private:
  struct Lane {
    Engine* engine = nullptr;
    int thread = 0;                   // the pool thread that runs it
    std::deque<SharedBatch> pending;  // a null batch: Finish (or stop)
    bool scheduled = false;           // a task of this lane is queued or running
    bool done = false;
    uint64_t processed = 0;
    Findings findings;
    Status status;
  };

  void Run(Lane* lane);
  // processed(), under mu_.
  uint64_t LeastProcessed() const;
  // Puts `batch` (null: the end) on every lane and schedules the idle ones.
  void Append(const SharedBatch& batch);

  JobPool* const pool_;
  const size_t max_events_;
  std::vector<std::unique_ptr<Lane>> lanes_;
  mutable std::mutex mu_;
  std::condition_variable cv_;             // events released, or a lane done
  size_t in_flight_ = 0;                   // events of batches not yet freed
  std::vector<std::vector<Event>> spare_;  // freed batches' vectors
  bool closed_ = false;
  bool finish_ = false;  // the end marker means Finish, not stop
};

}  // namespace seer::predictor
