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
  void Prune();

  // Released locks' entries kept for their next acquire, up to this many entries.
  static constexpr size_t kPruneAt = size_t{1} << 14;

  const uint64_t window_;
  std::vector<Event> events_;
  size_t carried_ = 0;  // events_ starts with this many carried acquires
  bool skip_ = false;
  uint64_t skipped_ = 0;  // events of the current window not kept
  uint64_t taken_ = 0;
  // (thread, lock) -> (depth, the outermost acquire) for every lock a thread
  // took: held while the depth is above 0.
  std::map<std::pair<uint32_t, uint64_t>, std::pair<uint32_t, Event>> held_;
  size_t prune_at_ = kPruneAt;
};

}  // namespace seer::predictor::seqcheck
