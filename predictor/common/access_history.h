// The earlier reads (or writes) of one group of bytes that a clock-based engine
// (HB, SHB, WCP) checks a new access against: the last access of each thread,
// kept until an access that every kept one is ordered before replaces them all.
// Checking "every kept access is ordered before e" is then exactly RAPID's check
// "join of the clocks of all earlier accesses <= C_e" (an epoch c@u is known to a
// clock iff the whole clock of that access is), so racy-event counts match RAPID
// while the common case stays one epoch (FastTrack). Race pairs are formed with
// the kept accesses that are unordered with e.
#pragma once

#include <vector>

#include "predictor/common/vector_clock.h"
#include "predictor/findings.h"

namespace seer::predictor {

// One access, compactly (40 bytes): its epoch and what a race report names.
struct AccessRecord {
  uint64_t index = 0;
  uint64_t pc = 0;
  uint64_t object = 0;
  uint32_t tid = 0;
  ClockValue clock = 0;
  uint32_t size = 0;
  EventKind kind = EventKind::kRead;
  bool atomic = false;

  static AccessRecord Of(const Event& e, ClockValue clock, bool atomic) {
    return AccessRecord{e.index, e.pc, e.object, e.tid, clock, static_cast<uint32_t>(e.aux), e.kind, atomic};
  }
  Epoch epoch() const { return Epoch{tid, clock}; }
  EventRef ref() const { return EventRef{index, tid, pc, kind, object, size}; }
};

class AccessHistory {
 public:
  struct CheckResult {
    bool race = false;      // some kept access is unordered with e (and not both atomic)
    bool all_known = true;  // every kept access is ordered before e
  };

  // `known(const Epoch&)` says whether the current event is ordered after the
  // access with that epoch; `on_race(const AccessRecord&)` is called for each
  // kept access that races with the current one.
  template <typename Known, typename OnRace>
  CheckResult Check(const Known& known, bool atomic, OnRace&& on_race) const {
    CheckResult r;
    if (!has_first_) return r;
    Visit(first_, known, atomic, on_race, &r);
    for (const AccessRecord& a : more_) Visit(a, known, atomic, on_race, &r);
    return r;
  }

  // Fast paths for the common race-free case, where a history is one access the
  // current event is ordered after. Neither changes anything when it fails.
  template <typename Known>
  bool AllKnownFast(const Known& known) const {
    return !has_first_ || (more_.empty() && known(first_.epoch()));
  }
  template <typename Known>
  bool ReplaceIfAllKnownFast(const Known& known, const AccessRecord& a) {
    if (!AllKnownFast(known)) return false;
    first_ = a;
    has_first_ = true;
    return true;
  }

  // Records an access; `all_known` is the result of Check for it.
  void Add(const AccessRecord& a, bool all_known) {
    if (all_known || !has_first_) {
      first_ = a;
      has_first_ = true;
      more_.clear();
      return;
    }
    if (first_.tid == a.tid) {
      first_ = a;
      return;
    }
    for (AccessRecord& m : more_)
      if (m.tid == a.tid) {
        m = a;
        return;
      }
    more_.push_back(a);
  }

  bool empty() const { return !has_first_; }

  // Calls fn(const AccessRecord&) for each kept access.
  template <typename Fn>
  void ForEach(Fn&& fn) const {
    if (!has_first_) return;
    fn(first_);
    for (const AccessRecord& a : more_) fn(a);
  }

 private:
  template <typename Known, typename OnRace>
  static void Visit(const AccessRecord& a, const Known& known, bool atomic, OnRace& on_race, CheckResult* r) {
    if (known(a.epoch())) return;
    r->all_known = false;
    if (atomic && a.atomic) return;
    r->race = true;
    on_race(a);
  }

  AccessRecord first_;
  bool has_first_ = false;
  std::vector<AccessRecord> more_;
};

// Checks one access against a cell's read and write histories and records it:
// the whole per-access step of the clock engines (HB, SHB, WCP). `known` says
// whether the current event is ordered after an epoch; `on_race` gets each kept
// access the current one races with. Returns whether it races with any.
template <typename Known, typename OnRace>
[[gnu::always_inline]] inline bool CheckAndRecord(AccessHistory* reads, AccessHistory* writes,
                                                  const AccessRecord& record, bool write, const Known& known,
                                                  OnRace&& on_race) {
  if (write ? reads->AllKnownFast(known) && writes->ReplaceIfAllKnownFast(known, record)
            : writes->AllKnownFast(known) && reads->ReplaceIfAllKnownFast(known, record))
    return false;  // the common race-free case
  const AccessHistory::CheckResult w = writes->Check(known, record.atomic, on_race);
  if (write) {
    const AccessHistory::CheckResult r = reads->Check(known, record.atomic, on_race);
    writes->Add(record, w.all_known);
    return w.race || r.race;
  }
  reads->Add(record, reads->Check(known, record.atomic, [](const AccessRecord&) {}).all_known);
  return w.race;
}

}  // namespace seer::predictor
