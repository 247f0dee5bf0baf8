// The regions the atomicity engine checks: which two accesses of one thread a
// programmer means to run without another thread's conflicting access between
// them (docs/seqcheck.md, "What a region is"). Two accesses are one region when
// they lie in one block the program marks atomic, or when a lock section of
// their thread spans both, or when the first is a read in a section and the
// second an access of the thread's next section of the same lock (the value
// read is used there: a lost update, a check then act), or when the thread
// releases no lock between them within one function activation.
#pragma once

#include <cstdint>
#include <vector>

#include "predictor/seqcheck/trace_model.h"

namespace seer::predictor::seqcheck {

class Regions {
 public:
  // One pass over the model's events (function entries and exits, marked
  // blocks, lock sections): five numbers per node.
  explicit Regions(const TraceModel& m);

  // A position range of a thread: (acquire, release) of a lock section.
  struct NextSection {
    uint32_t acquire = 0, release = 0;
  };
  // What OneRegion asks of a node as the first access of a pair. A scan takes
  // it while the node is at hand, for the pairs in which the node is the first
  // access, up to thousands of events later (where its entries have left the
  // cache).
  struct Marks {
    uint32_t releases = 0, activation = kNone, block = kNone, held_until = 0;  // as PerNode's
    NextSection next;       // the first of a read's next sections (ReadUsedInNextSection);
                            // {0, 0}: none
    uint32_t more = kNone;  // where the rest of them start in next_sections_; kNone: no more
  };
  Marks Of(uint32_t n) const;

  // Whether the accesses e1 and e2 of one thread, e1 first in program order,
  // are one region; k1 is Of(e1), pos1 e1's position in its thread. Window
  // bounds are the caller's.
  bool OneRegion(uint32_t e1, const Marks& k1, uint32_t pos1, uint32_t e2) const;
  // Asks the memory for node n's entry ahead of a OneRegion or Of about it
  // (TraceModel::Prefetch), and, a few nodes later (its entry loaded by then),
  // for its next sections ahead of an Of.
  void Prefetch(uint32_t n) const { __builtin_prefetch(&nodes_[n]); }
  void PrefetchNext(uint32_t n) const {
    if (nodes_[n].next_sections != kNone) __builtin_prefetch(&next_sections_[nodes_[n].next_sections]);
  }

 private:
  bool ReadUsedInNextSection(uint32_t e1, const Marks& k1, uint32_t e2) const;
  bool OneActivation(const Marks& k1, uint32_t pos1, uint32_t e2) const;

  const TraceModel& m_;
  struct PerNode {
    uint32_t releases = 0;           // releases of its thread before it
    uint32_t activation = kNone;     // innermost function activation (a thread without function
                                     // events has one)
    uint32_t block = kNone;          // outermost marked atomic block it lies in, or kNone
    uint32_t held_until = 0;         // the latest release position of the sections open at it
                                     // (UINT32_MAX: one is never released; 0: none is open)
    uint32_t next_sections = kNone;  // a read's list in next_sections_ (ReadUsedInNextSection);
                                     // kNone: it holds no lock, or it is no read
  };
  std::vector<PerNode> nodes_;
  // For ReadUsedInNextSection, found in the constructor's pass, where the read
  // is at hand: asked per pair (e1, e2), a walk over e1's sections, thousands
  // of events back, and a search for each one's next section missed the cache
  // at every step (a tenth of the engine's time). Per read, for each section
  // open at it that a plain unlock ends, the positions of its thread's next
  // section of the lock when a plain lock enters that one (release UINT32_MAX
  // when it never ends), {0, 0} for the other open sections (no position lies
  // inside), ending with an entry whose acquire is kNone. One list per change
  // of the thread's open sections, shared by the reads in between.
  std::vector<NextSection> next_sections_;
  // Per activation, the thread positions of its entry and exit: entry -1 for
  // one entered before the trace (or window) starts, exit kNone for one still
  // open at its end.
  std::vector<int64_t> entry_;
  std::vector<uint32_t> exit_;
};

}  // namespace seer::predictor::seqcheck
