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

// Walks one thread's nodes in program order, as the atomicity scan does, and
// gives each its marks: what OneRegion asks of it. Everything a mark depends
// on lies at or before its node, or is filled in by the time the walk reaches
// a later node that could pair with it (a read's next sections, an
// activation's exit), so the walk keeps only the state of the thread it is on:
// no table per node (a pass over the window in trace order that wrote one was
// a tenth of the engine's time, and reading it back another twentieth).
class Regions {
 public:
  explicit Regions(const TraceModel& m) : m_(m) {}

  // What OneRegion asks of an access, taken while the walk is at its node.
  struct Marks {
    uint32_t releases = 0;      // releases of its thread before it
    uint32_t activation = 0;    // innermost function activation (a thread without function events has one)
    uint32_t block = kNone;     // outermost marked atomic block it lies in (its begin's position), or kNone
    uint32_t held_until = 0;    // the latest release position of the sections open at it
                                // (UINT32_MAX: one is never released; 0: none is open)
    uint32_t sections = kNone;  // a read's open sections, a list in lists_ (ReadUsedInNextSection);
                                // kNone: it holds no lock, or it is no read
  };

  // Starts the walk over thread t: its first node comes next.
  void Start(uint32_t t);
  // The walk's next node, at position pos: its flags, and its kind when it
  // acquires, releases or scopes (kAcquires, kReleases, kScopes; ignored for
  // any other node), with the lock it acquires or releases.
  Marks Step(uint32_t pos, uint16_t flags, EventKind kind, uint32_t lock);

  // Whether the accesses e1 and e2 of the thread walked, e1 first in program
  // order, are one region: pos1, pos2 are their positions, k1, k2 their marks,
  // and the walk is at e2. Window bounds are the caller's.
  bool OneRegion(uint32_t e1, uint32_t pos1, const Marks& k1, uint32_t e2, uint32_t pos2, const Marks& k2) const;

 private:
  bool ReadUsedInNextSection(uint32_t e1, const Marks& k1, uint32_t e2, uint32_t pos2) const;
  bool OneActivation(const Marks& k1, uint32_t pos1, const Marks& k2, uint32_t pos2) const;
  void Enter(int64_t entry);

  const TraceModel& m_;
  // The thread walked.
  uint32_t t_ = kNone;
  uint32_t releases_ = 0, acquires_ = 0;  // so far; acquires_ numbers its sections (TraceModel::section_release)
  uint32_t block_ = kNone, depth_ = 0;    // the outermost marked block open, and its nesting
  std::vector<uint32_t> open_;            // activations open, innermost last; the bottom one entered before the trace
  // Per activation, the thread positions of its entry and exit: entry -1 for
  // one entered before the trace (or window) starts, exit kNone for one still
  // open (or not yet left by the walk).
  std::vector<int64_t> entry_;
  std::vector<uint32_t> exit_;
  // The sections open, each with its lock, release position (UINT32_MAX if
  // never released) and number (in acquire order).
  struct Section {
    uint32_t lock, release, id;
  };
  std::vector<Section> sections_;
  // Per section, whether a plain unlock ended it (a condition wait's release
  // is a hand-off), and its next section of the same lock when a plain lock
  // enters that one ({0, 0} until the walk reaches it, or when none does).
  struct NextSection {
    uint32_t acquire = 0, release = 0;
  };
  std::vector<bool> plain_release_;
  std::vector<NextSection> next_;
  // Per lock, the thread's latest section (kNone: none yet), and the locks set
  // there, to reset at the next thread.
  std::vector<uint32_t> latest_;
  std::vector<uint32_t> latest_set_;
  // The open sections' numbers at the reads, one list per change of them
  // (shared by the reads in between), each ending with kNone; list_: the
  // current one, kNone while the sections have changed since it was made.
  std::vector<uint32_t> lists_;
  uint32_t list_ = kNone;
};

}  // namespace seer::predictor::seqcheck
