// Cuts a trace into windows for SeqCheck, whose model holds every event of what
// it reasons about in memory (0.2 to 1.3 KB an event): a trace longer than a
// window is decided window by window, so memory stays bounded whatever its
// length. A window's reorderings run after everything before it, in trace order:
// every event before the window is taken as done. That keeps them reorderings of
// the whole trace once the window knows the locks held as it begins: each held
// lock's (outermost) acquire is carried into the next window, ahead of its
// events, with its original position, and runs there before everything else
// (TraceModel's `carried`: a hard order; the witness checker checks it). Reads of values written before the window,
// forks and signals before it need nothing: they already happened.
// The price: a pattern whose events fall in two windows is not seen (docs/seqcheck.md).
#pragma once

#include <cstdint>
#include <map>
#include <utility>
#include <vector>

#include "seer/event.h"

namespace seer::predictor::seqcheck {

class TraceWindows {
 public:
  // `window`: events per window (carried acquires not counted); 0: one window.
  explicit TraceWindows(uint64_t window) : window_(window) {}

  // Adds events; returns true when the current window is full (call Take).
  bool Add(const Event* events, size_t n, size_t* used);
  // The current window's events, in trace order, the first *carried of them the
  // acquires carried in; the next window starts with the acquires of the locks
  // held at this point.
  std::vector<Event> Take(size_t* carried);
  // Gives back a taken window's vector, after Take and before the next Add:
  // the next window fills it instead of a new one (a window is tens of MB, and
  // fresh memory costs a page fault per 4 KB as it fills).
  void Recycle(std::vector<Event> events);
  // Whether the window filling now (or the next, right after Take) keeps its
  // events: a skipped window (another shard's, predictor/shard.h) is only
  // counted and followed for the locks held, and Take returns its carried
  // acquires alone. Reset by Take.
  void SkipCurrent(bool skip) { skip_ = skip; }
  bool skipping() const { return skip_; }
  bool empty() const { return events_.size() == carried_ && skipped_ == 0; }
  uint64_t windows_taken() const { return taken_; }

 private:
  void Track(const Event& e);

  const uint64_t window_;
  std::vector<Event> events_;
  size_t carried_ = 0;  // events_ starts with this many carried acquires
  bool skip_ = false;
  uint64_t skipped_ = 0;  // events of the current window not kept
  uint64_t taken_ = 0;
  // Per thread (by its dense id), the locks it holds: (lock, depth, the
  // outermost acquire), few at a time, so a vector searched from its end. An
  // entry goes at its last release; the vectors keep their room, so a critical
  // section allocates nothing (a map node per section was a tenth of a
  // shard's time, predictor/shard.h), and a lookup is a short scan, not a
  // tree's search over every lock a thread ever took (5-9% of the engines).
  struct Held {
    uint64_t lock = 0;
    uint32_t depth = 0;
    Event acquire;
  };
  std::vector<Held>& HeldBy(uint32_t tid);
  static constexpr uint32_t kDenseThreads = 1 << 20;  // ids above: sparse_ (ids are dense, seer/event.h)
  std::vector<std::vector<Held>> held_;
  std::map<uint32_t, std::vector<Held>> sparse_;
};

}  // namespace seer::predictor::seqcheck
