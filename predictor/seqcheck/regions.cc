#include "predictor/seqcheck/regions.h"

#include <algorithm>

namespace seer::predictor::seqcheck {

void Regions::Start(uint32_t t) {
  t_ = t;
  releases_ = acquires_ = 0;
  block_ = kNone;
  depth_ = 0;
  open_.clear();
  entry_.clear();
  exit_.clear();
  sections_.clear();
  plain_release_.clear();
  next_.clear();
  if (latest_.size() < m_.locks()) latest_.assign(m_.locks(), kNone);
  for (uint32_t lock : latest_set_) latest_[lock] = kNone;
  latest_set_.clear();
  lists_.clear();
  list_ = kNone;
  Enter(-1);  // a thread without function events stays in this activation
}

void Regions::Enter(int64_t entry) {
  open_.push_back(static_cast<uint32_t>(entry_.size()));
  entry_.push_back(entry);
  exit_.push_back(kNone);
}

Regions::Marks Regions::Step(uint32_t pos, uint16_t flags, EventKind kind, uint32_t lock) {
  Marks k;
  // Sections open at the node: acquired before it, released at or after it.
  for (const Section& section : sections_) k.held_until = std::max(k.held_until, section.release);
  if ((flags & kReads) && !(flags & kWrites) && !sections_.empty()) {
    if (list_ == kNone) {
      list_ = static_cast<uint32_t>(lists_.size());
      for (const Section& section : sections_) lists_.push_back(section.id);
      lists_.push_back(kNone);
    }
    k.sections = list_;
  }
  k.releases = releases_;
  if (flags & kReleases) {
    // A thread holds a lock in one section at a time (the model leaves nested
    // re-acquisitions out), so the lock names the section.
    auto it = std::find_if(sections_.begin(), sections_.end(), [&](const Section& s) { return s.lock == lock; });
    if (it != sections_.end()) {
      plain_release_[it->id] = kind == EventKind::kRelease;
      sections_.erase(it);
    }
    list_ = kNone;
    ++releases_;
  }
  if (flags & kAcquires) {
    const uint32_t id = static_cast<uint32_t>(next_.size());
    const uint32_t release = m_.section_release(t_, acquires_++);
    next_.emplace_back();
    plain_release_.push_back(false);
    uint32_t& previous = latest_[lock];
    if (previous == kNone)
      latest_set_.push_back(lock);
    else if (plain_release_[previous] && kind == EventKind::kAcquire)
      next_[previous] = {pos, release};
    previous = id;
    sections_.push_back({lock, release, id});
    list_ = kNone;
  }
  if (flags & kScopes) {
    switch (kind) {
      case EventKind::kFuncEntry: Enter(pos); break;
      case EventKind::kFuncExit:
        exit_[open_.back()] = pos;
        open_.pop_back();
        // An exit of the bottom activation: its caller was entered before the
        // trace too, and encloses everything so far.
        if (open_.empty()) Enter(-1);
        break;
      case EventKind::kAtomicBegin:
        if (depth_++ == 0) block_ = pos;  // a block is named by its begin
        break;
      case EventKind::kAtomicEnd:
        if (depth_ > 0 && --depth_ == 0) block_ = kNone;
        break;
      default: break;
    }
  }
  k.activation = open_.back();
  k.block = block_;
  return k;
}

bool Regions::OneRegion(uint32_t e1, uint32_t pos1, const Marks& k1, uint32_t e2, uint32_t pos2,
                        const Marks& k2) const {
  if (k1.block != kNone && k1.block == k2.block) return true;
  // The rule that walks the sections open at e1 last.
  if (k1.releases == k2.releases && OneActivation(k1, pos1, k2, pos2)) return true;
  // A section of the thread open at e1 and still open at e2: it held the lock
  // throughout, whatever it took and released inside.
  if (k1.held_until > pos2) return true;
  return ReadUsedInNextSection(e1, k1, e2, pos2);
}

// e1 reads in a section of lock L that a plain unlock ends; e2 lies in the
// thread's next section of L, entered by a plain lock, and writes, or reads at
// another instruction. A condition wait between them is a hand-off (the thread
// waits for others to change the state), and a read repeated by the same
// instruction is a loop's new look (polling), not a use of the old value.
// (A next section that contains e2 begins before it: the walk, at e2, has
// filled it in.)
bool Regions::ReadUsedInNextSection(uint32_t e1, const Marks& k1, uint32_t e2, uint32_t pos2) const {
  if (k1.sections == kNone) return false;
  bool used = false;
  for (size_t i = k1.sections; lists_[i] != kNone && !used; ++i) {
    const NextSection& next = next_[lists_[i]];
    used = next.acquire < pos2 && next.release > pos2;  // {0, 0}: none
  }
  return used && ((m_.node(e2).flags & kWrites) || m_.event(e1).pc != m_.event(e2).pc);
}

// The innermost activations of e1 and e2 are one, or one encloses the other
// (a callee's access and its caller's); accesses in two calls of a function
// from a loop are not one region. A thread without function events has one
// activation. (An activation that exits after e2 has no exit yet: kNone.)
bool Regions::OneActivation(const Marks& k1, uint32_t pos1, const Marks& k2, uint32_t pos2) const {
  const uint32_t a1 = k1.activation, a2 = k2.activation;
  if (a1 == a2) return true;
  return exit_[a1] == kNone || exit_[a1] > pos2 || entry_[a2] < pos1;
}

}  // namespace seer::predictor::seqcheck
