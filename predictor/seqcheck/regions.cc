#include "predictor/seqcheck/regions.h"

#include <algorithm>
#include <unordered_map>

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
  struct Section {
    uint32_t acquire;  // node
    uint32_t release;  // position, UINT32_MAX if never released
    uint32_t id;       // its number, for `next`
  };
  struct Thread {
    std::vector<uint32_t> open;  // activations open, innermost last; the bottom one entered before the trace
    uint32_t releases = 0, block = kNone, depth = 0;
    uint32_t acquires = 0;          // its sections so far (TraceModel::section_release)
    std::vector<Section> sections;  // open ones
    uint32_t list = kNone;          // their list in `lists`, kNone: not listed since they changed
  };
  std::vector<Thread> threads(m.threads());
  auto start = [&](Thread& t, int64_t entry) {
    t.open.push_back(static_cast<uint32_t>(entry_.size()));
    entry_.push_back(entry);
    exit_.push_back(kNone);
  };
  // Sections are numbered in the trace order of their acquires. Per (thread,
  // lock), its latest section; per section, whether a plain unlock ended it (a
  // condition wait's release is a hand-off), and its next section (filled in
  // when the pass reaches that one: the lists of the reads before it hold
  // section numbers until the end of the pass).
  std::unordered_map<uint64_t, uint32_t> latest;
  std::vector<bool> plain_release;
  std::vector<NextSection> next;
  std::vector<uint32_t> lists;  // next_sections_ as section numbers, each list ending with kNone
  for (Thread& t : threads) start(t, -1);
  for (uint32_t n = 0; n < m.size(); ++n) {
    const Node& node = m.node(n);
    const EventKind kind = m.event(n).kind;
    Thread& t = threads[node.tid];
    PerNode& p = nodes_[n];
    // Sections open at n: acquired before it, released at or after it.
    for (const Section& section : t.sections) p.held_until = std::max(p.held_until, section.release);
    if ((node.flags & kReads) && !IsWrite(node) && !t.sections.empty()) {
      if (t.list == kNone) {
        t.list = static_cast<uint32_t>(lists.size());
        for (const Section& section : t.sections) lists.push_back(section.id);
        lists.push_back(kNone);
      }
      p.next_sections = t.list;
    }
    if (node.flags & kReleases) {
      auto it = std::find_if(t.sections.begin(), t.sections.end(),
                             [&](const Section& section) { return section.acquire == node.match; });
      if (it != t.sections.end()) {
        plain_release[it->id] = kind == EventKind::kRelease;
        t.sections.erase(it);
      }
      t.list = kNone;
      p.releases = t.releases++;
    } else {
      p.releases = t.releases;
    }
    if (node.flags & kAcquires) {
      const uint32_t id = static_cast<uint32_t>(next.size());
      const uint32_t release = m.section_release(node.tid, t.acquires++);
      next.emplace_back();
      plain_release.push_back(false);
      auto [previous, first] = latest.try_emplace((uint64_t{node.tid} << 32) | node.lock, id);
      if (!first) {
        if (plain_release[previous->second] && kind == EventKind::kAcquire)
          next[previous->second] = {node.pos, release};
        previous->second = id;
      }
      t.sections.push_back({n, release, id});
      t.list = kNone;
    }
    switch (kind) {
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
  next_sections_.resize(lists.size());
  for (size_t i = 0; i < lists.size(); ++i)
    next_sections_[i] = lists[i] == kNone ? NextSection{kNone, 0} : next[lists[i]];
}

Regions::Marks Regions::Of(uint32_t n) const {
  const PerNode& p = nodes_[n];
  Marks k;
  k.releases = p.releases;
  k.activation = p.activation;
  k.block = p.block;
  k.held_until = p.held_until;
  if (p.next_sections != kNone) {
    k.next = next_sections_[p.next_sections];  // a list has an entry per section open at the read
    if (next_sections_[p.next_sections + 1].acquire != kNone) k.more = p.next_sections + 1;
  }
  return k;
}

bool Regions::OneRegion(uint32_t e1, const Marks& k1, uint32_t pos1, uint32_t e2) const {
  const PerNode& p2 = nodes_[e2];
  if (k1.block != kNone && k1.block == p2.block) return true;
  // The rule that walks the sections open at e1 last.
  if (k1.releases == p2.releases && OneActivation(k1, pos1, e2)) return true;
  // A section of the thread open at e1 and still open at e2: it held the lock
  // throughout, whatever it took and released inside.
  if (k1.held_until > m_.node(e2).pos) return true;
  return ReadUsedInNextSection(e1, k1, e2);
}

// e1 reads in a section of lock L that a plain unlock ends; e2 lies in the
// thread's next section of L, entered by a plain lock, and writes, or reads at
// another instruction. A condition wait between them is a hand-off (the thread
// waits for others to change the state), and a read repeated by the same
// instruction is a loop's new look (polling), not a use of the old value.
// (The sections and their next ones are found in the constructor.)
bool Regions::ReadUsedInNextSection(uint32_t e1, const Marks& k1, uint32_t e2) const {
  const Node& n2 = m_.node(e2);
  auto inside = [&](const NextSection& next) { return next.acquire < n2.pos && next.release > n2.pos; };
  bool used = inside(k1.next);  // {0, 0} when e1 writes or holds no lock
  if (!used && k1.more != kNone)
    for (const NextSection* next = &next_sections_[k1.more]; next->acquire != kNone && !used; ++next)
      used = inside(*next);
  return used && (IsWrite(n2) || m_.event(e1).pc != m_.event(e2).pc);
}

// The innermost activations of e1 and e2 are one, or one encloses the other
// (a callee's access and its caller's); accesses in two calls of a function
// from a loop are not one region. A thread without function events has one
// activation.
bool Regions::OneActivation(const Marks& k1, uint32_t pos1, uint32_t e2) const {
  const uint32_t a1 = k1.activation, a2 = nodes_[e2].activation;
  if (a1 == a2) return true;
  return exit_[a1] == kNone || exit_[a1] > m_.node(e2).pos || entry_[a2] < pos1;
}

}  // namespace seer::predictor::seqcheck
