// One engine class for both variants: they share the first pass (PwrState and the
// access graph) and differ in bounds and in when candidates are traversed.
#include "predictor/engines/w3/w3_engine.h"

#include <algorithm>
#include <bit>
#include <iterator>
#include <string>
#include <unordered_set>
#include <vector>

#include "predictor/common/flat_map.h"
#include "predictor/common/race_collector.h"
#include "predictor/common/shadow_memory.h"
#include "predictor/common/sync_ops.h"
#include "predictor/common/word_bytes.h"
#include "predictor/engines/w3/access_graph.h"
#include "predictor/engines/w3/pwr_state.h"

namespace seer::predictor {
namespace {

using w3::AccessNode;

// A variable's accesses, by id (0, 1, ... in trace order). With a bound, only the
// last `bound` are kept (the edges of older ones are forgotten). Every access
// writes a slot last used long ago (a cache miss): a node, its event and its
// traversal stamp share one 128-byte slot, a pair of cache lines fetched together.
class NodeStore {
 public:
  explicit NodeStore(uint64_t bound) : bound_(bound), capacity_(std::bit_ceil(bound)) {}
  uint64_t next_id() const { return next_; }
  AccessNode* Get(uint64_t id) {
    if (id >= next_ || (bound_ != 0 && id + bound_ < next_)) return nullptr;
    return &slots_[Slot(id)].node;
  }
  // The event and the traversal stamp of a node that Get() returns.
  const EventRef& Ref(uint64_t id) const { return slots_[Slot(id)].ref; }
  uint64_t& Mark(uint64_t id) { return slots_[Slot(id)].mark; }
  // Appends a node for `ref`; returns it for filling (its slot may be a reused one).
  AccessNode& Append(const EventRef& ref) {
    const uint64_t id = next_++;
    if (bound_ == 0 || slots_.size() < capacity_) {
      NodeSlot& s = slots_.emplace_back();
      s.ref = ref;
      return s.node;
    }
    // The next access to this variable reuses the next slot, last used `capacity_`
    // accesses ago: ask for it now, so that it waits in cache instead of memory.
    const NodeSlot* next = &slots_[Slot(id + 1)];
    __builtin_prefetch(next, 1, 2);
    __builtin_prefetch(reinterpret_cast<const char*>(next) + 64, 1, 2);
    NodeSlot& s = slots_[Slot(id)];
    s.ref = ref;
    s.mark = 0;
    s.node.preds.clear();
    return s.node;
  }

 private:
  struct alignas(128) NodeSlot {
    AccessNode node;
    EventRef ref;
    uint64_t mark = 0;
  };
  // The ring holds a power of two of slots (no division), at least `bound_`.
  size_t Slot(uint64_t id) const { return bound_ != 0 ? id & (capacity_ - 1) : id; }

  uint64_t bound_;
  uint64_t capacity_;
  uint64_t next_ = 0;
  std::vector<NodeSlot> slots_;
};

// The last write of some bytes of a cell.
struct LastWrite {
  uint8_t bytes = 0;
  bool atomic = false;
  EventRef ref;
  uint32_t tid = 0;
  ClockValue clock = 0;
  uint32_t lockset = 0;
  VectorClock vc;
};

// The last writes of a cell's bytes, one per group of bytes last written by the
// same access: usually one, kept inline.
class LastWrites {
 public:
  template <typename Fn>
  void ForEach(Fn&& fn) const {
    if (first_.bytes != 0) fn(first_);
    for (const LastWrite& w : more_) fn(w);
  }
  // Forgets `bytes` (overwritten or freed); entries left without bytes go.
  void Clear(uint8_t bytes) {
    first_.bytes &= static_cast<uint8_t>(~bytes);
    for (LastWrite& w : more_) w.bytes &= static_cast<uint8_t>(~bytes);
    std::erase_if(more_, [](const LastWrite& w) { return w.bytes == 0; });
    if (first_.bytes == 0 && !more_.empty()) {
      std::swap(first_, more_.back());  // the emptied entry's clock storage is reused later
      more_.pop_back();
    }
  }
  // An entry to fill for a new write, after Clear of its bytes.
  LastWrite& Add() { return first_.bytes == 0 ? first_ : more_.emplace_back(); }

 private:
  LastWrite first_;
  std::vector<LastWrite> more_;
};

// A variable of the TR is a group of bytes of one 8-byte word (a cell): a word's
// cells are disjoint, each byte belongs to the cell created by the first access
// that touched it, and an access is processed in every cell it shares a byte with
// (as one node per cell, keeping the bytes it covers there). So two accesses that
// share a byte always meet in that byte's cell, and conflict only on shared bytes:
// overlapping accesses that start at different addresses (ranges, unaligned,
// struct copies) are compared, adjacent bytes of one word are not (docs/analyses.md, "Shared choices",
// event model), and bytes only ever accessed alone keep their own graph and edge
// bound, as whole words accessed as such do.
struct Variable {
  explicit Variable(uint64_t bound) : nodes(bound) {}
  NodeStore nodes;
  std::vector<w3::NodeRef> rw;  // RW(x): mutually concurrent accesses
  LastWrites last_writes;
  std::vector<size_t> open;  // exact: its pending_ entries not yet traversed
};

struct Cell {
  uint8_t bytes = 0;
  std::unique_ptr<Variable> var;
};

// The cells of one word (at most eight: their bytes are disjoint), inline: the
// word's entry in the map leads straight to the variable. Each byte knows its
// cell, so the common access (exactly the bytes of one cell) needs no scan.
class Word {
 public:
  template <typename Fn>
  void ForEach(Fn&& fn) {
    for (uint8_t i = 0; i < count_; ++i) fn(cells_[i]);
  }
  // The cell whose bytes are exactly `bytes` (not 0), or null.
  const Cell* Exact(uint8_t bytes) const {
    const uint8_t i = cell_of_[std::countr_zero(bytes)];
    return i != kNone && cells_[i].bytes == bytes ? &cells_[i] : nullptr;
  }
  const Cell& Add(Cell c) {
    Index(c.bytes, count_);
    return cells_[count_++] = std::move(c);
  }
  // Removes the cells for which `drop(Cell&)` says so.
  template <typename Fn>
  void EraseIf(Fn&& drop) {
    uint8_t kept = 0;
    for (uint8_t i = 0; i < count_; ++i)
      if (!drop(cells_[i])) cells_[kept++] = std::move(cells_[i]);
    for (uint8_t i = kept; i < count_; ++i) cells_[i] = Cell();
    count_ = kept;
    std::fill(std::begin(cell_of_), std::end(cell_of_), kNone);
    for (uint8_t i = 0; i < count_; ++i) Index(cells_[i].bytes, i);
  }

 private:
  static constexpr uint8_t kNone = 0xff;
  void Index(uint8_t bytes, uint8_t cell) {
    for (unsigned b = 0; b < 8; ++b)
      if (bytes & (1u << b)) cell_of_[b] = cell;
  }

  uint8_t count_ = 0;  // first: read with the first cell, in one cache line
  uint8_t cell_of_[8] = {kNone, kNone, kNone, kNone, kNone, kNone, kNone, kNone};
  Cell cells_[8];
};

// What the exact variant's first pass found at access f in one cell, reported in
// the second pass in trace order: the write-read pairs (decided in the first pass,
// TR Alg. 1; kept with the first cell of the access) and the conc(x) pairs to
// traverse, with f's clock (the TR's evt). A free of part of the cell traverses
// early (`resolved`), before it clears the freed bytes of the cell's accesses.
struct Pending {
  Variable* var;
  uint64_t f;
  VectorClock v;
  std::vector<w3::NodeRef> partners;
  std::vector<EventRef> write_reads;
  uint64_t access = 0;      // the access's sequence number
  bool first_part = true;   // the first (or only) cell of its access
  bool many_parts = false;  // its access spans several cells: pairs are deduplicated
  bool is_resolved = false;
  std::vector<uint64_t> resolved;  // the reported accesses, when is_resolved
};

class W3Engine : public Engine {
 public:
  W3Engine(std::string name, bool exact, uint64_t history_bound, uint64_t edge_bound, uint64_t position_cache_bytes)
      : name_(std::move(name)), exact_(exact), edge_bound_(edge_bound), pwr_(history_bound, position_cache_bytes) {}

  void Process(const Event* events, size_t n) override {
    for (size_t i = 0; i < n; ++i) {
      const Event& e = events[i];
      lowering_.Lower(e, [&](const LoweredOp& op) { Apply(e, op); });
    }
  }

  Status Finish(Findings* findings) override {
    // Second pass (TR Def. 4.4): from each concurrent pair, follow edges backwards.
    for (Pending& p : pending_) {
      const EventRef f_ref = p.var->nodes.Ref(p.f);
      if (p.access != reported_access_) {
        if (!reported_.empty()) reported_.clear();
        reported_access_ = p.access;
      }
      if (p.first_part)
        for (const EventRef& w : p.write_reads) AddRace(w, f_ref);
      dedupe_ = p.many_parts;
      if (p.is_resolved) {
        for (uint64_t g : p.resolved) Report(*p.var, g, p.f);
      } else {
        ReportFrom(*p.var, *p.var->nodes.Get(p.f), p.f, p.v, p.partners);
      }
    }
    RaceResult result;
    collector_.Fill(name_, Guarantee::kComplete, &result);
    findings->races.push_back(std::move(result));
    return Status::Ok();
  }

 private:
  // The part of an access that falls in one cell.
  struct Part {
    Variable* var;
    uint8_t bytes;
  };

  void Apply(const Event& e, const LoweredOp& op) {
    const uint32_t t = e.tid;
    switch (op.op) {
      case SyncOp::kRead:
      case SyncOp::kWrite:
        // An RMW's read matters here: without its write-read dependency a lock
        // built on test-and-set leaves its critical sections unordered.
        ForEachAccess(e, op, [&](const LoweredOp& a) { Access(e, a); });
        return;
      case SyncOp::kAcquire: pwr_.Acquire(t, op.object, op.shared); return;
      case SyncOp::kRelease: pwr_.Release(t, op.object); return;
      case SyncOp::kFork: pwr_.Fork(t, static_cast<uint32_t>(op.object)); return;
      case SyncOp::kJoin: pwr_.Join(t, static_cast<uint32_t>(op.object)); return;
      case SyncOp::kSignal: pwr_.Signal(t, op.object); return;
      case SyncOp::kWait: pwr_.Wait(t, op.object); return;
      case SyncOp::kEndSignals: pwr_.EndSignals(op.object); return;
      case SyncOp::kFresh: Forget(op.object, std::max<uint64_t>(1, op.size)); return;
      case SyncOp::kFree: Free(e, op); return;
    }
  }

  // Appends the parts of the access of `bytes` of word `w` to parts_, creating a
  // cell for bytes no access touched before.
  void AddParts(uint64_t w, uint8_t bytes) {
    Word& word = vars_[w];
    if (const Cell* c = word.Exact(bytes)) {
      parts_.push_back({c->var.get(), bytes});
      return;
    }
    uint8_t covered = 0;
    word.ForEach([&](const Cell& c) {
      if (const uint8_t shared = c.bytes & bytes) {
        parts_.push_back({c.var.get(), shared});
        covered |= shared;
      }
    });
    if (const uint8_t fresh = bytes & ~covered) {
      const Cell& c = word.Add({fresh, std::make_unique<Variable>(exact_ ? 0 : edge_bound_)});
      parts_.push_back({c.var.get(), fresh});
    }
  }

  // A freed or re-allocated range starts new variables: cells inside it are
  // dropped (the exact variant keeps them alive for its second pass), partly
  // covered ones forget the freed bytes of their accesses.
  void Forget(uint64_t address, uint64_t size) {
    ForEachWordIn(address, size, [&](uint64_t, Word& word, uint8_t bytes) {
      word.EraseIf([&](Cell& c) {
        if ((c.bytes & ~bytes) == 0) {
          if (exact_) retired_.push_back(std::move(c.var));
          return true;
        }
        if (c.bytes & bytes) ForgetBytes(c.var.get(), bytes);
        return false;
      });
    });
  }

  // Calls fn(w, Word&, bytes of the word in the range) for each word of
  // [address, address+size) some access touched, in no particular order.
  template <typename Fn>
  void ForEachWordIn(uint64_t address, uint64_t size, Fn&& fn) {
    const uint64_t last = address + size - 1;
    const uint64_t first_word = address >> kWordShift, last_word = last >> kWordShift;
    if (last_word - first_word < vars_.size()) {
      for (uint64_t w = first_word; w <= last_word; ++w)
        if (Word* word = vars_.Find(w)) fn(w, *word, WordByteMask(w, address, last));
      return;
    }
    vars_.ForEach([&](uint64_t w, Word& word) {
      if (w >= first_word && w <= last_word) fn(w, word, WordByteMask(w, address, last));
    });
  }

  void ForgetBytes(Variable* x, uint8_t bytes) {
    // The exact variant's pending traversals of this cell must see the bytes as
    // they were: do them now (the reached accesses do not depend on the time).
    for (size_t i : x->open) {
      Pending& p = pending_[i];
      p.is_resolved = true;
      w3::ReportReachable(
          *x->nodes.Get(p.f), p.f, p.v, p.partners, pwr_.locksets(), x->nodes,
          [&](uint64_t g) { p.resolved.push_back(g); }, &stack_);
      p.partners.clear();
    }
    x->open.clear();
    const uint64_t end = x->nodes.next_id();
    for (uint64_t id = end; id-- > 0;) {
      AccessNode* n = x->nodes.Get(id);
      if (n == nullptr) break;  // older ones were forgotten by the bound
      n->bytes &= static_cast<uint8_t>(~bytes);
    }
    x->last_writes.Clear(bytes);
  }

  void Access(const Event& e, const LoweredOp& op) {
    const uint64_t last = op.object + std::max<uint64_t>(1, op.size) - 1;
    parts_.clear();
    for (uint64_t w = op.object >> kWordShift; w <= last >> kWordShift; ++w)
      AddParts(w, WordByteMask(w, op.object, last));
    AccessParts(e, op);
  }

  // A free writes its whole block (sync_ops.h): the cells of every byte of a
  // block up to kFreeWholeBlockBytes, only the existing ones of a larger block.
  void Free(const Event& e, const LoweredOp& op) {
    const LoweredOp write{SyncOp::kWrite, op.object, op.size, false, false};
    if (op.size <= kFreeWholeBlockBytes) {
      Access(e, write);
      return;
    }
    parts_.clear();
    ForEachWordIn(op.object, op.size, [&](uint64_t, Word& word, uint8_t bytes) {
      word.ForEach([&](const Cell& c) {
        if (const uint8_t shared = c.bytes & bytes) parts_.push_back({c.var.get(), shared});
      });
    });
    if (!parts_.empty()) AccessParts(e, write);
  }

  // The access `op` of `e` in each of parts_.
  void AccessParts(const Event& e, const LoweredOp& op) {
    const uint32_t t = e.tid;
    const bool write = op.op == SyncOp::kWrite;
    const EventRef ref = EventRef::Of(e);
    const bool many_parts = parts_.size() > 1;
    ++accesses_;

    write_reads_.clear();
    if (!write) {
      // Write-read pairs (TR Def. 3.3) are decided before any dependency is added.
      const uint32_t lockset = pwr_.Lockset(t);
      for (const Part& part : parts_) {
        part.var->last_writes.ForEach([&](const LastWrite& lw) {
          if ((lw.bytes & part.bytes) == 0) return;
          const bool racy = lw.clock > pwr_.Clock(t).Get(lw.tid) && !(lw.atomic && op.atomic) &&
                            pwr_.locksets().Disjoint(lw.lockset, lockset);
          if (racy && std::none_of(write_reads_.begin(), write_reads_.end(),
                                   [&](const EventRef& r) { return r.index == lw.ref.index; }))
            write_reads_.push_back(lw.ref);
        });
      }
      for (const Part& part : parts_)
        part.var->last_writes.ForEach([&](const LastWrite& lw) {
          if ((lw.bytes & part.bytes) != 0) pwr_.JoinClock(t, lw.vc);
        });
      if (!exact_)
        for (const EventRef& w : write_reads_) AddRace(w, ref);
    }
    pwr_.W3(t);
    const VectorClock& v = pwr_.Clock(t);
    const uint32_t lockset = pwr_.Lockset(t);
    if (!reported_.empty()) reported_.clear();  // clear() of a grown set costs its buckets
    dedupe_ = many_parts;
    for (size_t i = 0; i < parts_.size(); ++i) {
      Variable& x = *parts_[i].var;
      const uint64_t id = x.nodes.next_id();
      const w3::NodeRef f_ref{id, t, v.Get(t)};
      preds_.clear();
      partners_.clear();
      w3::SplitConcurrent(&x.rw, v, f_ref, &preds_, &partners_);
      AccessNode& f = x.nodes.Append(ref);
      f.tid = t;
      f.clock = f_ref.clock;
      f.lockset = lockset;
      f.write = write;
      f.atomic = op.atomic;
      f.bytes = parts_[i].bytes;
      for (const w3::NodeRef& p : preds_) f.preds.push_back(p.id);
      if (exact_) {
        const bool first = i == 0;
        if (!partners_.empty() || (first && !write_reads_.empty())) {
          x.open.push_back(pending_.size());
          Pending& p = pending_.emplace_back();
          p.var = &x;
          p.f = id;
          p.v.CopyFrom(v);
          p.partners = partners_;
          if (first) p.write_reads = write_reads_;
          p.access = accesses_;
          p.first_part = first;
          p.many_parts = many_parts;
        }
      } else if (!partners_.empty()) {
        ReportFrom(x, f, id, v, partners_);
      }
      if (write) RecordWrite(&x, parts_[i].bytes, ref, t, f_ref.clock, lockset, op.atomic, v);
    }
    pwr_.Tick(t);
  }

  static void RecordWrite(Variable* x, uint8_t bytes, const EventRef& ref, uint32_t t, ClockValue clock,
                          uint32_t lockset, bool atomic, const VectorClock& v) {
    x->last_writes.Clear(bytes);
    LastWrite& lw = x->last_writes.Add();
    lw.bytes = bytes;
    lw.atomic = atomic;
    lw.ref = ref;
    lw.tid = t;
    lw.clock = clock;
    lw.lockset = lockset;
    lw.vc.CopyFrom(v);
  }

  void ReportFrom(Variable& x, const AccessNode& f, uint64_t f_id, const VectorClock& v,
                  const std::vector<w3::NodeRef>& partners) {
    w3::ReportReachable(
        f, f_id, v, partners, pwr_.locksets(), x.nodes, [&](uint64_t g) { Report(x, g, f_id); }, &stack_);
  }

  // Access g of cell x races with f. Accesses spanning several cells may meet in
  // more than one: it is one pair.
  void Report(Variable& x, uint64_t g, uint64_t f_id) {
    const EventRef& first = x.nodes.Ref(g);
    if (dedupe_ && !reported_.insert(first.index).second) return;
    AddRace(first, x.nodes.Ref(f_id));
  }

  // `first` precedes `second`; calls come in non-decreasing order of `second`,
  // which is the racy event (the collector counts it once).
  void AddRace(const EventRef& first, const EventRef& second) {
    collector_.AddPair(first, second);
    collector_.AddRacyEvent(second);
  }

  std::string name_;
  bool exact_;
  uint64_t edge_bound_;
  w3::PwrState pwr_;
  EventLowering lowering_;
  RaceCollector collector_;
  // By word (address >> 3); a freed word's entry stays, empty.
  FlatMap64<Word> vars_;
  std::vector<std::unique_ptr<Variable>> retired_;
  std::vector<Pending> pending_;
  std::vector<w3::NodeRef> preds_, partners_;
  std::vector<uint64_t> stack_;
  std::vector<Part> parts_;
  std::vector<EventRef> write_reads_;
  // Earlier accesses already paired with the current access, when it spans cells.
  bool dedupe_ = false;
  std::unordered_set<uint64_t> reported_;
  uint64_t accesses_ = 0;         // Access calls so far
  uint64_t reported_access_ = 0;  // the one reported_ is about (Finish)
};

}  // namespace

std::unique_ptr<Engine> CreateW3Engine(const AnalysisOptions& options) {
  return std::make_unique<W3Engine>("w3", /*exact=*/true, /*history_bound=*/0, /*edge_bound=*/0,
                                    options.w3_position_cache_bytes);
}

std::unique_ptr<Engine> CreateW3LinearEngine(const AnalysisOptions& options) {
  // A chain of w3_edges edges (the TR's bound on edges(x)) spans w3_edges + 1 earlier
  // accesses, plus the current one.
  return std::make_unique<W3Engine>("w3-linear", /*exact=*/false, options.w3_history, options.w3_edges + 2,
                                    options.w3_position_cache_bytes);
}

}  // namespace seer::predictor
