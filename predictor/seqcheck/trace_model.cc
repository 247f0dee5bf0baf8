#include "predictor/seqcheck/trace_model.h"

#include <algorithm>
#include <iterator>
#include <utility>

#include "predictor/common/sync_ops.h"
#include "predictor/seqcheck/grouped.h"
#include "predictor/seqcheck/huge_pages.h"

namespace seer::predictor::seqcheck {
namespace {

uint32_t Dense(std::unordered_map<uint64_t, uint32_t>* ids, uint64_t key) {
  auto [it, inserted] = ids->try_emplace(key, static_cast<uint32_t>(ids->size()));
  (void)inserted;
  return it->second;
}

// Atomics synchronise through sync objects with bit 63 set (AtomicSyncObject).
// The model leaves them out: a feasible reordering keeps every read's writer,
// which orders a load after the store it reads from whatever their memory
// orders, and on a sequentially consistent schedule acquire and release order
// nothing more than that.
bool IsAtomicSyncObject(uint64_t object) { return (object >> 63) != 0; }

bool IsRange(SyncOp op) {
  return op == SyncOp::kRead || op == SyncOp::kWrite || op == SyncOp::kFree || op == SyncOp::kFresh;
}

// The bytes [first, end) of a range op: at least its first byte (an allocation
// or free of unknown size, 0, names its block by its start), without overflow
// at the top of the address space.
std::pair<uint64_t, uint64_t> Bytes(const LoweredOp& op) {
  const uint64_t size = std::max<uint64_t>(op.size, 1);
  const uint64_t end = op.object + size < op.object ? UINT64_MAX : op.object + size;
  return {op.object, end};
}

// The cut of the trace's bytes into cells (trace_model.h): at every first and
// past-the-end byte of an access, free or allocation, so that each of them
// covers whole cells. Cell c is [cuts[c], cuts[c + 1]).
class Cells {
 public:
  explicit Cells(const std::vector<Event>& events) {
    EventLowering lowering;  // its own: lowering is stateful (block sizes, fences)
    std::vector<std::pair<uint64_t, uint64_t>> accessed;
    // Most accesses repeat a range seen shortly before (a loop's variables): a
    // small direct-mapped table of recent access ranges keeps their cuts out of
    // the sort. ({1, 0} is no range.)
    constexpr unsigned kRecentBits = 12;
    std::vector<std::pair<uint64_t, uint64_t>> recent(size_t{1} << kRecentBits, {1, 0});
    auto add = [&](const LoweredOp& op) {
      if (!IsRange(op.op)) return;
      const std::pair<uint64_t, uint64_t> range = Bytes(op);
      const bool access = op.op == SyncOp::kRead || op.op == SyncOp::kWrite;
      if (access) {
        auto& slot = recent[(range.first * 0x9E3779B97F4A7C15ull) >> (64 - kRecentBits)];
        if (slot == range) return;
        slot = range;
        accessed.push_back(range);
      }
      cuts_.push_back(range.first);
      cuts_.push_back(range.second);
    };
    for (const Event& e : events) {
      if (IsPlainAccessEvent(e))
        add(PlainAccessOp(e));  // most events: no dispatch
      else
        lowering.Lower(e, add);
    }
    std::sort(cuts_.begin(), cuts_.end());
    cuts_.erase(std::unique(cuts_.begin(), cuts_.end()), cuts_.end());
    accessed_.assign(cuts_.size(), false);
    for (auto [first, end] : accessed)
      for (uint32_t c = Index(first), last = Index(end); c < last; ++c) accessed_[c] = true;
  }

  size_t size() const { return cuts_.size(); }
  // The cell starting at `byte`, a cut; the cells of a range [first, end) are
  // [Index(first), Index(end)).
  uint32_t Index(uint64_t byte) const {
    return static_cast<uint32_t>(std::lower_bound(cuts_.begin(), cuts_.end(), byte) - cuts_.begin());
  }
  // Whether some read or write of the trace touches cell c (a free writes only those).
  bool accessed(uint32_t c) const { return accessed_[c]; }

  // The cells [first cell, end cell) of the bytes [first, end): two binary
  // searches, remembered in a small direct-mapped table of recent ranges since
  // most accesses repeat one (a loop's variables).
  std::pair<uint32_t, uint32_t> Range(uint64_t first, uint64_t end) {
    Recent& r = recent_[(first * 0x9E3779B97F4A7C15ull) >> (64 - kRecentBits)];
    if (r.first != first || r.end != end) r = {first, end, Index(first), Index(end)};
    return {r.first_cell, r.end_cell};
  }

 private:
  static constexpr unsigned kRecentBits = 12;
  struct Recent {
    uint64_t first = 1, end = 0;  // {1, 0}: no range
    uint32_t first_cell = 0, end_cell = 0;
  };
  std::vector<uint64_t> cuts_;
  std::vector<bool> accessed_;
  std::vector<Recent> recent_ = std::vector<Recent>(size_t{1} << kRecentBits);
};

}  // namespace

TraceModel::TraceModel(std::vector<Event> events, size_t carried)
    : events_(std::move(events)), carried_(std::min(carried, events_.size())) {
  const uint32_t n = static_cast<uint32_t>(events_.size());
  ReserveHuge(&nodes_, n);  // filled in place below: a node is written once
  uint32_t nthreads = 0;
  {
    // Sized once: a window's vectors grown by doublings are copied and faulted
    // in again at each step.
    std::vector<uint32_t> length;  // per thread id; its size is the threads'
    for (const Event& e : events_) {
      if (e.tid >= length.size()) length.resize(size_t{e.tid} + 1, 0);
      ++length[e.tid];
    }
    nthreads = static_cast<uint32_t>(length.size());
    thread_nodes_.resize(nthreads);
    for (uint32_t t = 0; t < nthreads; ++t) thread_nodes_[t].reserve(length[t]);
    ReserveHuge(&accesses_, n);  // most events access one cell
  }
  fork_of_.assign(nthreads, kNone);
  branches_.resize(nthreads);
  open_.resize(nthreads);

  std::unordered_map<uint64_t, uint32_t> lock_ids, signal_ids;
  // A variable is a cell until an allocation covers it: a reused block is a new
  // variable (as in the race engines), so accesses to a freed block and to the
  // block allocated in its place never form a pattern.
  Cells cells(events_);
  std::vector<uint32_t> cell_var(cells.size(), kNone);
  std::vector<uint32_t> last_write;
  std::vector<std::vector<uint32_t>> last_signal;  // [signal object][thread]
  // Per thread, the locks it holds, each with its depth, the acquire node of
  // its outermost section and that section's entry in open_: few at a time,
  // so a vector searched from its end (a hash map per thread cost a lookup per
  // lock event); a lock leaves it at its outermost release.
  struct Held {
    uint32_t lock, depth, acquire, section;
  };
  std::vector<std::vector<Held>> held(nthreads);
  auto held_entry = [&](uint32_t tid, uint32_t lock) {
    std::vector<Held>& h = held[tid];
    auto it = std::find_if(h.rbegin(), h.rend(), [&](const Held& x) { return x.lock == lock; });
    return it == h.rend() ? h.end() : std::prev(it.base());
  };
  // Most lock events name one of a few locks: a small direct-mapped table of
  // the recent ones keeps them out of lock_ids (a lookup per lock event).
  struct RecentLock {
    uint64_t object = 0;
    uint32_t id = kNone;  // kNone: an empty slot
  };
  constexpr unsigned kRecentLockBits = 6;
  std::vector<RecentLock> recent_locks(size_t{1} << kRecentLockBits);
  std::vector<std::pair<uint32_t, uint32_t>> joins;  // (join node, child)
  EventLowering lowering;
  std::vector<WriteSeen> writes_seen;  // in trace order
  ReserveHuge(&access_begin_, n + 1);
  access_begin_.resize(n + 1);

  for (uint32_t i = 0; i < n; ++i) {
    const Event& e = events_[i];
    Node& nd = nodes_.emplace_back();  // the room is reserved: references to earlier nodes stay
    nd.tid = e.tid;
    nd.pos = static_cast<uint32_t>(thread_nodes_[e.tid].size());
    thread_nodes_[e.tid].push_back(i);
    access_begin_[i] = static_cast<uint32_t>(accesses_.size());
    // Node i reads and/or writes the variable of cell c.
    auto access = [&](uint32_t c, bool reads, bool writes) {
      if (cell_var[c] == kNone) {
        cell_var[c] = variables_++;
        last_write.push_back(kNone);
      }
      Access a;
      a.var = cell_var[c];
      if (reads) {
        nd.flags |= kReads;
        a.obs = last_write[a.var];
      }
      if (writes) {
        nd.flags |= kWrites;
        last_write[a.var] = i;
        writes_seen.push_back({a.var, e.tid, nd.pos});
      }
      accesses_.push_back(a);
    };
    auto lock_of = [&](uint64_t object) {
      RecentLock& recent = recent_locks[(object * 0x9E3779B97F4A7C15ull) >> (64 - kRecentLockBits)];
      if (recent.id != kNone && recent.object == object) return recent.id;
      uint32_t l = Dense(&lock_ids, object);
      if (l >= acquires_.size()) {
        acquires_.emplace_back(nthreads);
        exclusive_.emplace_back(nthreads);
        lock_objects_.push_back(object);
      }
      recent = {object, l};
      return l;
    };
    lowering.Lower(e, [&](const LoweredOp& op) {
      switch (op.op) {
        case SyncOp::kRead:
        case SyncOp::kWrite: {
          // An atomic read-modify-write reads what it overwrites.
          const bool reads = op.op == SyncOp::kRead || e.kind == EventKind::kAtomicRmw;
          const auto [first, end] = Bytes(op);
          const auto [first_cell, end_cell] = cells.Range(first, end);
          for (uint32_t c = first_cell; c < end_cell; ++c) access(c, reads, op.op == SyncOp::kWrite);
          return;
        }
        case SyncOp::kAcquire: {
          const uint32_t l = lock_of(op.object);
          auto h = held_entry(e.tid, l);
          if (h != held[e.tid].end()) {
            ++h->depth;  // nested: only the outermost pair counts
            return;
          }
          // Sections enter open_ in acquire order, as the pass meets them;
          // a release fills in its position (a pass over the nodes after this
          // one missed the cache at every release it looked up).
          OpenIndex& ix = open_[e.tid];
          held[e.tid].push_back({l, 1, i, static_cast<uint32_t>(ix.acq_pos.size())});
          ix.acq_pos.push_back(nd.pos);
          ix.rel_pos.push_back(UINT32_MAX);
          ix.acq_node.push_back(i);
          nd.flags |= kAcquires | (op.shared ? kShared : 0) | (IsNonBlockingAcquire(e) ? kNonBlocking : 0);
          nd.lock = l;
          acquires_[l][e.tid].push_back(nd.pos);
          if (!op.shared) exclusive_[l][e.tid].push_back(nd.pos);
          return;
        }
        case SyncOp::kRelease: {
          const uint32_t l = lock_of(op.object);
          auto h = held_entry(e.tid, l);
          if (h == held[e.tid].end()) return;  // release of a lock not held
          if (--h->depth > 0) return;
          const uint32_t acq = h->acquire;
          open_[e.tid].rel_pos[h->section] = nd.pos;
          held[e.tid].erase(h);
          nd.flags |= kReleases | (nodes_[acq].flags & kShared);
          nd.lock = l;
          nd.match = acq;
          nodes_[acq].match = i;
          return;
        }
        case SyncOp::kFork: {
          nd.flags |= kForks;
          if (op.object < nthreads && fork_of_[op.object] == kNone) fork_of_[op.object] = i;
          return;
        }
        case SyncOp::kJoin: {
          nd.flags |= kJoins;
          if (op.object < nthreads) joins.push_back({i, static_cast<uint32_t>(op.object)});
          return;
        }
        case SyncOp::kSignal: {
          if (IsAtomicSyncObject(op.object)) return;
          const uint32_t s = Dense(&signal_ids, op.object);
          if (s >= last_signal.size()) last_signal.emplace_back(nthreads, kNone);
          nd.flags |= kSignals;
          last_signal[s][e.tid] = i;
          return;
        }
        case SyncOp::kWait: {
          if (IsAtomicSyncObject(op.object)) return;
          const uint32_t s = Dense(&signal_ids, op.object);
          if (s >= last_signal.size()) last_signal.emplace_back(nthreads, kNone);
          nd.flags |= kWaits;
          auto& req = signals_before_[i];
          for (uint32_t sig : last_signal[s])
            if (sig != kNone) req.push_back(sig);
          return;
        }
        case SyncOp::kEndSignals: {
          if (IsAtomicSyncObject(op.object)) return;
          const uint32_t s = Dense(&signal_ids, op.object);
          if (s < last_signal.size()) std::fill(last_signal[s].begin(), last_signal[s].end(), kNone);
          return;
        }
        // A free writes the block's bytes that accesses touch (the bytes it
        // allocated, EventLowering); an allocation starts new variables.
        case SyncOp::kFree: {
          const auto [first, end] = Bytes(op);
          for (uint32_t c = cells.Index(first), last = cells.Index(end); c < last; ++c)
            if (cells.accessed(c)) access(c, false, true);
          return;
        }
        case SyncOp::kFresh: {
          const auto [first, end] = Bytes(op);
          std::fill(cell_var.begin() + cells.Index(first), cell_var.begin() + cells.Index(end), kNone);
          return;
        }
      }
    });
    switch (e.kind) {
      case EventKind::kBranch:
        nd.flags |= kBranches;
        has_branches_ = true;
        branches_[e.tid].push_back(nd.pos);
        break;
      case EventKind::kFuncEntry:
      case EventKind::kFuncExit:
      case EventKind::kAtomicBegin:
      case EventKind::kAtomicEnd: nd.flags |= kScopes; break;
      default: break;
    }
  }
  access_begin_[n] = static_cast<uint32_t>(accesses_.size());
  PlaceWrites(writes_seen);

  // A window's carried acquires run first: each thread's first other event
  // waits for those of the other threads.
  if (carried_ > 0) {
    for (uint32_t t = 0; t < nthreads; ++t) {
      auto first = std::find_if(thread_nodes_[t].begin(), thread_nodes_[t].end(),
                                [&](uint32_t node) { return node >= carried_; });
      if (first == thread_nodes_[t].end()) continue;
      auto& req = signals_before_[*first];
      for (uint32_t c = 0; c < carried_; ++c)
        if (nodes_[c].tid != t) req.push_back(c);
      if (!req.empty()) nodes_[*first].flags |= kAfterCarried;
    }
  }

  // A fork before the child's first event; a join after the child's last.
  for (uint32_t t = 0; t < nthreads; ++t) {
    if (fork_of_[t] != kNone) {
      if (thread_nodes_[t].empty() || thread_nodes_[t][0] < fork_of_[t])
        fork_of_[t] = kNone;  // not a real order
      else
        nodes_[fork_of_[t]].other = thread_nodes_[t][0];
    }
  }
  for (auto [join, child] : joins)
    if (!thread_nodes_[child].empty() && thread_nodes_[child].back() < join)
      nodes_[join].other = thread_nodes_[child].back();

  for (uint32_t t = 0; t < nthreads; ++t) BuildTree(&open_[t]);
}

void TraceModel::BuildTree(OpenIndex* ix) {
  // `later`: the previous greater release, with a stack of the sections not
  // yet released past by a later one.
  ix->later.resize(ix->rel_pos.size());
  std::vector<uint32_t> stack;
  for (uint32_t i = 0; i < ix->rel_pos.size(); ++i) {
    while (!stack.empty() && ix->rel_pos[stack.back()] <= ix->rel_pos[i]) stack.pop_back();
    ix->later[i] = stack.empty() ? kNone : stack.back();
    stack.push_back(i);
  }
  ix->leaves = 1;
  while (ix->leaves < ix->acq_pos.size()) ix->leaves *= 2;
  ix->tree.assign(2 * ix->leaves, 0);
  for (size_t i = 0; i < ix->rel_pos.size(); ++i) ix->tree[ix->leaves + i] = ix->rel_pos[i];
  for (size_t v = ix->leaves - 1; v >= 1; --v) ix->tree[v] = std::max(ix->tree[2 * v], ix->tree[2 * v + 1]);
}

void TraceModel::PlaceWrites(const std::vector<WriteSeen>& seen) {
  // Grouped by thread, then by variable (a radix sort: each grouping keeps the
  // order it is given), so that each variable's writes come by thread, and each
  // thread's in trace order. (A sort by thread per variable was a fortieth of
  // the atomicity engine's time.)
  Grouped<WriteSeen> by_thread(threads()), by_var(variables_);
  for (const WriteSeen& w : seen) {
    by_thread.Count(w.tid);
    by_var.Count(w.var);
  }
  by_thread.Place();
  for (const WriteSeen& w : seen) by_thread.Add(w.tid, w);
  by_var.Place();
  for (const WriteSeen& w : by_thread.values()) by_var.Add(w.var, w);
  const std::vector<WriteSeen>& all = by_var.values();
  write_positions_.resize(all.size());
  for (size_t i = 0; i < all.size(); ++i) write_positions_[i] = all[i].pos;
  writer_begin_.assign(size_t{variables_} + 1, 0);
  for (uint32_t v = 0; v < variables_; ++v) {
    for (uint32_t run = by_var.Begin(v), last = by_var.Begin(v + 1); run != last;) {
      uint32_t end = run + 1;
      while (end != last && all[end].tid == all[run].tid) ++end;
      writers_.push_back({all[run].tid, run, end});
      run = end;
    }
    writer_begin_[v + 1] = static_cast<uint32_t>(writers_.size());
  }
}

std::span<const uint32_t> TraceModel::writes(uint32_t var, uint32_t t) const {
  if (var >= variables_) return {};
  const auto first = writers_.begin() + writer_begin_[var], last = writers_.begin() + writer_begin_[var + 1];
  auto w = std::lower_bound(first, last, t, [](const Writer& x, uint32_t u) { return x.tid < u; });
  if (w == last || w->tid != t) return {};
  return {write_positions_.data() + w->first, w->end - w->first};
}

const std::vector<uint32_t>& TraceModel::acquires(uint32_t lock, uint32_t t, bool exclusive_only) const {
  const auto& table = exclusive_only ? exclusive_ : acquires_;
  if (lock >= table.size() || t >= table[lock].size()) return empty_;
  return table[lock][t];
}

const std::vector<uint32_t>& TraceModel::signals_before(uint32_t wait) const {
  auto it = signals_before_.find(wait);
  return it == signals_before_.end() ? empty_ : it->second;
}

}  // namespace seer::predictor::seqcheck
