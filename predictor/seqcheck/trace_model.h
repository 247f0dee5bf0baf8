// The whole trace as SeqCheck reasons about it: one node per event, with the
// lock, access, thread and signal effects of its kind (through EventLowering), the
// acquire/release matching, the write each read observed, and the per-thread,
// per-variable and per-lock indices the feasibility check queries.
//
// Variables are byte ranges, as in the race engines (docs/analyses.md, "Bytes"):
// the bytes of the trace are cut at every access's first and past-the-end byte,
// so that each access covers whole cells, and a variable is a cell between two
// allocations covering it. Two accesses conflict iff they share a variable,
// whatever their start addresses (a 16-byte memcpy and a write of one field),
// and a read observes, per variable it covers, the last write to it. A free
// (EventLowering's kFree) writes every variable of its block that some access
// of the trace touches, and the block's variables live on until an allocation
// makes its range fresh, as the race engines treat it.
#pragma once

#include <algorithm>
#include <cstdint>
#include <limits>
#include <span>
#include <unordered_map>
#include <vector>

#include "seer/event.h"

namespace seer::predictor::seqcheck {

inline constexpr uint32_t kNone = std::numeric_limits<uint32_t>::max();

// Effects of one node; a node may have several (a cond-wait end waits and
// acquires; an atomic read-modify-write reads and writes).
enum NodeFlag : uint16_t {
  kReads = 1 << 0,
  kWrites = 1 << 1,
  kAcquires = 1 << 2,
  kReleases = 1 << 3,
  kShared = 1 << 4,  // the acquire/release is of a read-mode (rwlock) section
  kBranches = 1 << 5,
  kForks = 1 << 6,
  kJoins = 1 << 7,
  kSignals = 1 << 8,
  kWaits = 1 << 9,
  kNonBlocking = 1 << 10,   // the acquire is a trylock or timed lock: it never waits forever
  kAfterCarried = 1 << 11,  // a thread's first event after a window's carried acquires: they run
                            // first (trace_windows.h); signals_before lists them
  kScopes = 1 << 12,        // a function entry or exit, or a marked atomic block's begin or end
                            // (Regions needs the kinds of these events and of lock events only)
};

struct Node {
  uint32_t tid = 0;
  uint32_t pos = 0;  // position in its thread
  uint16_t flags = 0;
  uint32_t lock = kNone;   // dense lock id of the acquire/release
  uint32_t match = kNone;  // acquire <-> release of the same section; kNone: never released
  uint32_t other = kNone;  // fork: the child's first node; join: the child's last node
};

// One variable a node reads or writes (TraceModel::accesses).
struct Access {
  uint32_t var = kNone;  // dense variable id
  uint32_t obs = kNone;  // reads: the last write to var before it in the trace; kNone: initial value
};

class TraceModel {
 public:
  // `events` in total order. Nested re-acquisitions of a lock a thread already
  // holds (recursive mutexes) and their releases become nodes without effect:
  // only the outermost pair counts (docs/analyses.md, "Shared choices").
  // `carried`: how many of the first events a window carried in (the acquires of
  // the locks held as it begins, trace_windows.h): they run before every other
  // event, a hard order like a signal before its wait.
  explicit TraceModel(std::vector<Event> events, size_t carried = 0);
  size_t carried() const { return carried_; }

  size_t size() const { return nodes_.size(); }
  uint32_t threads() const { return static_cast<uint32_t>(thread_nodes_.size()); }
  const Node& node(uint32_t n) const { return nodes_[n]; }
  const Event& event(uint32_t n) const { return events_[n]; }
  const std::vector<Event>& events() const { return events_; }
  // Hands the events back (their buffer is reused for the next window); the
  // model is done with.
  std::vector<Event> ReleaseEvents() && { return std::move(events_); }
  // The variables node n reads or writes, ascending by address (several for a
  // range that covers several cells, none for a node that accesses nothing);
  // its kReads / kWrites flags say how.
  std::span<const Access> accesses(uint32_t n) const {
    return {accesses_.data() + access_begin_[n], accesses_.data() + access_begin_[n + 1]};
  }

  // The node of the event with trace position `index`, or kNone.
  uint32_t NodeOfIndex(uint64_t index) const {
    auto it =
        std::lower_bound(events_.begin(), events_.end(), index, [](const Event& e, uint64_t i) { return e.index < i; });
    return it == events_.end() || it->index != index ? kNone : static_cast<uint32_t>(it - events_.begin());
  }

  // Node ids of thread t, in program order.
  const std::vector<uint32_t>& thread_nodes(uint32_t t) const { return thread_nodes_[t]; }
  uint32_t thread_length(uint32_t t) const { return static_cast<uint32_t>(thread_nodes_[t].size()); }
  uint32_t At(uint32_t t, uint32_t pos) const { return thread_nodes_[t][pos]; }
  // The fork node that created thread t, or kNone.
  uint32_t fork_of(uint32_t t) const { return fork_of_[t]; }

  // True when the trace carries kBranch events: reads then need their original
  // write only when a later branch of their thread runs (the paper's model);
  // otherwise every read is taken to be followed by a branch.
  bool has_branches() const { return has_branches_; }
  // Positions of thread t's branch nodes, ascending.
  const std::vector<uint32_t>& branch_positions(uint32_t t) const { return branches_[t]; }

  // Positions of the writes to `var` by thread t, ascending.
  std::span<const uint32_t> writes(uint32_t var, uint32_t t) const;
  // Positions of the section acquires of `lock` by thread t, ascending; the
  // exclusive ones only when `exclusive_only`.
  const std::vector<uint32_t>& acquires(uint32_t lock, uint32_t t, bool exclusive_only) const;
  // The signals a wait node must follow: per thread, the last signal on the same
  // object before it in the trace (sound for semaphores and barriers).
  const std::vector<uint32_t>& signals_before(uint32_t wait) const;

  // Calls fn(acquire node) for each section of thread t open at position c: its
  // acquire is before c, its release (if any) at or after c.
  template <typename Fn>
  void ForEachOpenAt(uint32_t t, uint32_t c, Fn&& fn) const {
    OpenQuery(open_[t], c, fn);
  }

  // Where thread t's k-th lock section (in acquire order, its k-th node with
  // kAcquires) is released: the release's position in t, or UINT32_MAX when it
  // never is. (For a pass in trace order: the release node lies ahead.)
  uint32_t section_release(uint32_t t, uint32_t k) const { return open_[t].rel_pos[k]; }

  uint32_t variables() const { return variables_; }
  uint32_t locks() const { return static_cast<uint32_t>(acquires_.size()); }
  uint64_t lock_object(uint32_t lock) const { return lock_objects_[lock]; }

 private:
  // Sections of one thread in acquire order with a max-tree over release
  // positions, to list the sections open at any position in O(open * log n),
  // and each section's previous one released later, for a shorter walk that
  // answers most queries without the tree (OpenQuery).
  struct OpenIndex {
    std::vector<uint32_t> acq_pos;  // ascending
    std::vector<uint32_t> rel_pos;  // position of the release; UINT32_MAX if never released
    std::vector<uint32_t> acq_node;
    std::vector<uint32_t> later;  // the latest earlier section with a greater rel_pos; kNone: none
    std::vector<uint32_t> tree;   // max of rel_pos over ranges, size 2 * leaves
    size_t leaves = 0;
  };
  template <typename Fn>
  void OpenQuery(const OpenIndex& ix, uint32_t c, Fn&& fn) const;
  static void BuildTree(OpenIndex* ix);

  std::vector<Event> events_;
  size_t carried_ = 0;
  std::vector<Node> nodes_;
  std::vector<uint32_t> access_begin_;  // node -> its first entry of accesses_; size() + 1 entries
  std::vector<Access> accesses_;
  std::vector<std::vector<uint32_t>> thread_nodes_;
  std::vector<uint32_t> fork_of_;
  bool has_branches_ = false;
  std::vector<std::vector<uint32_t>> branches_;
  // Per variable, the threads that write it, ascending by thread, each with
  // its write positions: a variable costs its writers, not one list per thread
  // of the trace (hundreds of MB for thousands of threads: docs/seqcheck.md).
  // Variable v's writers are writers_[writer_begin_[v] .. writer_begin_[v + 1]),
  // a writer's positions write_positions_[first .. end), ascending: three
  // arrays, not a vector per (variable, thread), which on a window of many
  // variables were millions of small blocks (PlaceWrites).
  struct Writer {
    uint32_t tid, first, end;
  };
  // A write as the pass over the window meets it.
  struct WriteSeen {
    uint32_t var, tid, pos;
  };
  void PlaceWrites(const std::vector<WriteSeen>& seen);
  uint32_t variables_ = 0;
  std::vector<uint32_t> writer_begin_;
  std::vector<Writer> writers_;
  std::vector<uint32_t> write_positions_;
  std::vector<std::vector<std::vector<uint32_t>>> acquires_;   // [lock][thread]
  std::vector<std::vector<std::vector<uint32_t>>> exclusive_;  // [lock][thread]
  std::vector<uint64_t> lock_objects_;
  std::unordered_map<uint32_t, std::vector<uint32_t>> signals_before_;
  std::vector<OpenIndex> open_;
  std::vector<uint32_t> empty_;
};

template <typename Fn>
void TraceModel::OpenQuery(const OpenIndex& ix, uint32_t c, Fn&& fn) const {
  // Sections with acq_pos < c form a prefix [0, end); report those whose
  // release is at or after c by descending the max-tree.
  size_t end = static_cast<size_t>(std::lower_bound(ix.acq_pos.begin(), ix.acq_pos.end(), c) - ix.acq_pos.begin());
  if (end == 0) return;
  // First a walk back from the latest section acquired before c: an open one
  // is reported and the walk goes on to the one before it; from a closed one
  // (released before c) it jumps to `later`, since every section between them
  // was released even earlier. Open sections and enclosing ones are few at a
  // time, so this mostly ends within a few steps near the end of the arrays,
  // where the tree's descent missed the cache at every level (a tenth of the
  // deadlock engine's time). Reported in acquire order, as the tree reports
  // them; a walk that grows long gives way to the tree.
  {
    constexpr size_t kWalk = 32;
    uint32_t open[kWalk];
    size_t found = 0, steps = 0;
    uint32_t i = static_cast<uint32_t>(end - 1);
    while (i != kNone && ++steps <= kWalk) {
      if (ix.rel_pos[i] >= c) {
        open[found++] = i;
        i = i == 0 ? kNone : i - 1;
      } else {
        i = ix.later[i];
      }
    }
    if (i == kNone) {
      while (found > 0) fn(ix.acq_node[open[--found]]);
      return;
    }
  }
  // Depth-first with an array stack: this runs once per intruder candidate,
  // and a heap-allocated stack cost more than the descent. Each level leaves at
  // most one sibling behind, so the tree's height (< 64) bounds the stack. Each
  // entry carries its node's range of leaves [lo, hi), halved on the way down.
  struct Entry {
    size_t v, lo, hi;
  };
  Entry stack[2 * 64];
  size_t depth = 0;
  stack[depth++] = {1, 0, ix.leaves};
  while (depth != 0) {
    const Entry e = stack[--depth];
    if (e.lo >= end || ix.tree[e.v] < c) continue;
    if (e.v >= ix.leaves) {
      fn(ix.acq_node[e.lo]);
      continue;
    }
    const size_t mid = e.lo + (e.hi - e.lo) / 2;
    stack[depth++] = {2 * e.v + 1, mid, e.hi};
    stack[depth++] = {2 * e.v, e.lo, mid};
  }
}

}  // namespace seer::predictor::seqcheck
