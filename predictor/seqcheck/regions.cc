#include "predictor/seqcheck/regions.h"

#include <algorithm>

#include "predictor/seqcheck/huge_pages.h"

namespace seer::predictor::seqcheck {
namespace {

bool IsWrite(const Node& n) { return (n.flags & kWrites) != 0; }

}  // namespace

Regions::Regions(const TraceModel& m) : m_(m) {
  ReserveHuge(&nodes_, m.size());
  nodes_.resize(m.size());
  // One pass in trace order (the nodes' memory in order), with each thread's
  // state: a thread without function events stays in its first activation.
  struct Thread {
    std::vector<uint32_t> open;  // activations open, innermost last; the bottom one entered before the trace
    uint32_t releases = 0, block = kNone, depth = 0;
    std::vector<std::pair<uint32_t, uint32_t>> sections;  // open ones: (acquire node, release position)
  };
  std::vector<Thread> threads(m.threads());
  auto start = [&](Thread& t, int64_t entry) {
    t.open.push_back(static_cast<uint32_t>(entry_.size()));
    entry_.push_back(entry);
    exit_.push_back(kNone);
  };
  for (Thread& t : threads) start(t, -1);
  for (uint32_t n = 0; n < m.size(); ++n) {
    const Node& node = m.node(n);
    Thread& t = threads[node.tid];
    PerNode& p = nodes_[n];
    // Sections open at n: acquired before it, released at or after it.
    for (const auto& section : t.sections) p.held_until = std::max(p.held_until, section.second);
    if (node.flags & kReleases) {
      std::erase_if(t.sections, [&](const auto& section) { return section.first == node.match; });
      p.releases = t.releases++;
    } else {
      p.releases = t.releases;
    }
    if (node.flags & kAcquires) t.sections.push_back({n, node.match == kNone ? UINT32_MAX : m.node(node.match).pos});
    switch (m.event(n).kind) {
      case EventKind::kFuncEntry: start(t, node.pos); break;
      case EventKind::kFuncExit:
        exit_[t.open.back()] = node.pos;
        t.open.pop_back();
        // An exit of the bottom activation: its caller was entered before the
        // trace too, and encloses everything so far.
        if (t.open.empty()) start(t, -1);
        break;
      case EventKind::kAtomicBegin:
        if (t.depth++ == 0) t.block = n;  // a block is named by its begin node
        break;
      case EventKind::kAtomicEnd:
        if (t.depth > 0 && --t.depth == 0) t.block = kNone;
        break;
      default: break;
    }
    p.activation = t.open.back();
    p.block = t.block;
  }
}

bool Regions::OneRegion(uint32_t e1, uint32_t e2) const {
  const PerNode &p1 = nodes_[e1], &p2 = nodes_[e2];
  if (p1.block != kNone && p1.block == p2.block) return true;
  // The rule that walks the sections open at e1 last.
  if (p1.releases == p2.releases && OneActivation(e1, e2)) return true;
  return SectionSpans(e1, e2) || ReadUsedInNextSection(e1, e2);
}

// A section of the thread open at e1 and still open at e2: it held the lock
// throughout, whatever it took and released inside.
bool Regions::SectionSpans(uint32_t e1, uint32_t e2) const { return nodes_[e1].held_until > m_.node(e2).pos; }

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
// from a loop are not one region. A thread without function events has one
// activation.
bool Regions::OneActivation(uint32_t e1, uint32_t e2) const {
  const uint32_t a1 = nodes_[e1].activation, a2 = nodes_[e2].activation;
  if (a1 == a2) return true;
  return exit_[a1] == kNone || exit_[a1] > m_.node(e2).pos || entry_[a2] < m_.node(e1).pos;
}

}  // namespace seer::predictor::seqcheck
