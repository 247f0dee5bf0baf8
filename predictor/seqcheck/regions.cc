#include "predictor/seqcheck/regions.h"

#include <algorithm>

namespace seer::predictor::seqcheck {
namespace {

bool IsWrite(const Node& n) { return (n.flags & kWrites) != 0; }

}  // namespace

Regions::Regions(const TraceModel& m) : m_(m), nodes_(m.size()) {
  for (uint32_t t = 0; t < m.threads(); ++t) {
    const std::vector<uint32_t>& own = m.thread_nodes(t);
    const bool functions = std::any_of(own.begin(), own.end(), [&](uint32_t n) {
      const EventKind k = m.event(n).kind;
      return k == EventKind::kFuncEntry || k == EventKind::kFuncExit;
    });
    // The activations open at the current node, innermost last; the bottom one
    // may have been entered before the trace (entry -1).
    std::vector<uint32_t> open;
    auto start = [&](int64_t entry) {
      open.push_back(static_cast<uint32_t>(entry_.size()));
      entry_.push_back(entry);
      exit_.push_back(kNone);
    };
    if (functions) start(-1);
    uint32_t releases = 0, block = kNone, depth = 0;
    for (uint32_t n : own) {
      const Node& node = m.node(n);
      PerNode& p = nodes_[n];
      switch (m.event(n).kind) {
        case EventKind::kFuncEntry: start(node.pos); break;
        case EventKind::kFuncExit:
          exit_[open.back()] = node.pos;
          open.pop_back();
          // An exit of the bottom activation: its caller was entered before
          // the trace too, and encloses everything so far.
          if (open.empty()) start(-1);
          break;
        case EventKind::kAtomicBegin:
          if (depth++ == 0) block = static_cast<uint32_t>(n);  // a block is named by its begin node
          break;
        case EventKind::kAtomicEnd:
          if (depth > 0 && --depth == 0) block = kNone;
          break;
        default: break;
      }
      p.releases = releases;
      if (node.flags & kReleases) ++releases;
      p.activation = functions ? open.back() : kNone;
      p.block = block;
    }
  }
}

bool Regions::OneRegion(uint32_t e1, uint32_t e2) const {
  const PerNode &p1 = nodes_[e1], &p2 = nodes_[e2];
  if (p1.block != kNone && p1.block == p2.block) return true;
  // The common case first: it costs two comparisons, the others a walk over
  // the sections open at e1.
  if (p1.releases == p2.releases && OneActivation(e1, e2)) return true;
  return SectionSpans(e1, e2) || ReadUsedInNextSection(e1, e2);
}

// A section of the thread open at e1 and still open at e2: it held the lock
// throughout, whatever it took and released inside.
bool Regions::SectionSpans(uint32_t e1, uint32_t e2) const {
  const Node &n1 = m_.node(e1), &n2 = m_.node(e2);
  bool spans = false;
  m_.ForEachOpenAt(n1.tid, n1.pos, [&](uint32_t acquire) {
    const uint32_t release = m_.node(acquire).match;
    if (release == kNone || m_.node(release).pos > n2.pos) spans = true;
  });
  return spans;
}

// e1 reads in a section of lock L that a plain unlock ends; e2 lies in the
// thread's next section of L, entered by a plain lock, and writes, or reads at
// another instruction. A condition wait between them is a hand-off (the thread
// waits for others to change the state), and a read repeated by the same
// instruction is a loop's new look (polling), not a use of the old value.
bool Regions::ReadUsedInNextSection(uint32_t e1, uint32_t e2) const {
  const Node &n1 = m_.node(e1), &n2 = m_.node(e2);
  if (IsWrite(n1)) return false;
  if (!IsWrite(n2) && m_.event(e1).pc == m_.event(e2).pc) return false;
  bool used = false;
  m_.ForEachOpenAt(n1.tid, n1.pos, [&](uint32_t acquire) {
    const Node& a = m_.node(acquire);
    if (used || a.match == kNone) return;
    const Node& release = m_.node(a.match);
    if (release.pos >= n2.pos || m_.event(a.match).kind != EventKind::kRelease) return;
    const std::vector<uint32_t>& acquires = m_.acquires(a.lock, n1.tid, false);
    auto next = std::upper_bound(acquires.begin(), acquires.end(), release.pos);
    if (next == acquires.end() || *next >= n2.pos) return;
    const uint32_t again = m_.At(n1.tid, *next);
    if (m_.event(again).kind != EventKind::kAcquire) return;
    const uint32_t end = m_.node(again).match;
    used = end == kNone || m_.node(end).pos > n2.pos;
  });
  return used;
}

// The innermost activations of e1 and e2 are one, or one encloses the other
// (a callee's access and its caller's); accesses in two calls of a function
// from a loop are not one region. Threads without function events: true.
bool Regions::OneActivation(uint32_t e1, uint32_t e2) const {
  const uint32_t a1 = nodes_[e1].activation, a2 = nodes_[e2].activation;
  if (a1 == a2) return true;  // kNone for both: no function events
  return exit_[a1] == kNone || exit_[a1] > m_.node(e2).pos || entry_[a2] < m_.node(e1).pos;
}

}  // namespace seer::predictor::seqcheck
