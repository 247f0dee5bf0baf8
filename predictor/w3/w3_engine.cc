// One engine class for both variants: they share the first pass (PwrState and the
// access graph) and differ in bounds and in when candidates are traversed.
#include "predictor/w3/w3_engine.h"

#include <bit>
#include <string>
#include <unordered_map>
#include <vector>

#include "predictor/common/race_collector.h"
#include "predictor/common/sync_ops.h"
#include "predictor/w3/access_graph.h"
#include "predictor/w3/pwr_state.h"

namespace seer {
namespace {

using w3::AccessNode;

// A variable's accesses, by id (0, 1, ... in trace order). With a bound, only the
// last `bound` are kept (the edges of older ones are forgotten).
class NodeStore {
 public:
  explicit NodeStore(uint64_t bound) : bound_(bound), capacity_(std::bit_ceil(bound)) {}
  uint64_t next_id() const { return next_; }
  AccessNode* Get(uint64_t id) {
    if (id >= next_ || (bound_ != 0 && id + bound_ < next_)) return nullptr;
    return &slots_[Slot(id)];
  }
  // The event of a node that Get() returns.
  const EventRef& Ref(uint64_t id) const { return refs_[Slot(id)]; }
  // Appends a node for `ref`; returns it for filling (its slot may be a reused one).
  AccessNode& Append(const EventRef& ref) {
    const uint64_t id = next_++;
    if (bound_ == 0 || slots_.size() < capacity_) {
      refs_.push_back(ref);
      return slots_.emplace_back();
    }
    refs_[Slot(id)] = ref;
    AccessNode& n = slots_[Slot(id)];
    n.preds.clear();
    n.mark = 0;
    return n;
  }

 private:
  // The ring holds a power of two of slots (no division), at least `bound_`.
  size_t Slot(uint64_t id) const { return bound_ != 0 ? id & (capacity_ - 1) : id; }

  uint64_t bound_;
  uint64_t capacity_;
  uint64_t next_ = 0;
  std::vector<AccessNode> slots_;
  std::vector<EventRef> refs_;
};

struct LastWrite {
  bool present = false;
  EventRef ref;
  uint32_t tid = 0;
  ClockValue clock = 0;
  uint32_t lockset = 0;
  VectorClock vc;
};

struct Variable {
  explicit Variable(uint64_t bound) : nodes(bound) {}
  NodeStore nodes;
  std::vector<w3::NodeRef> rw;  // RW(x): mutually concurrent accesses
  LastWrite last_write;
};

// What the exact variant's first pass found at access f, reported in the second
// pass in trace order: a write-read pair (decided in the first pass, TR Alg. 1)
// and the conc(x) pairs to traverse, with f's clock (the TR's evt).
struct Pending {
  Variable* var;
  uint64_t f;
  VectorClock v;
  std::vector<w3::NodeRef> partners;
  bool write_read = false;
  EventRef last_write;
};

class W3Engine : public Engine {
 public:
  W3Engine(std::string name, bool exact, uint64_t history_bound, uint64_t edge_bound)
      : name_(std::move(name)), exact_(exact), edge_bound_(edge_bound), pwr_(history_bound) {}

  void Process(const Event* events, size_t n) override {
    for (size_t i = 0; i < n; ++i) {
      const Event& e = events[i];
      LowerEvent(e, [&](const LoweredOp& op) { Apply(e, op); });
    }
  }

  Status Finish(Findings* findings) override {
    // Second pass (TR Def. 4.4): from each concurrent pair, follow edges backwards.
    for (Pending& p : pending_) {
      AccessNode* f = p.var->nodes.Get(p.f);
      if (p.write_read) AddRace(p.last_write, p.var->nodes.Ref(p.f));
      ReportFrom(*p.var, *f, p.f, p.v, p.partners);
    }
    RaceResult result;
    collector_.Fill(name_, Guarantee::kComplete, &result);
    findings->races.push_back(std::move(result));
    return Status::Ok();
  }

 private:
  void Apply(const Event& e, const LoweredOp& op) {
    const uint32_t t = e.tid;
    switch (op.op) {
      case SyncOp::kRead: Access(e, op); return;
      case SyncOp::kWrite:
        // An atomic read-modify-write also reads: without its write-read dependency
        // a lock built on test-and-set leaves its critical sections unordered.
        if (e.kind == EventKind::kAtomicRmw) Access(e, LoweredOp{SyncOp::kRead, op.object, op.size, true, false});
        Access(e, op);
        return;
      case SyncOp::kAcquire: pwr_.Acquire(t, op.object, op.shared); return;
      case SyncOp::kRelease: pwr_.Release(t, op.object); return;
      case SyncOp::kFork: pwr_.Fork(t, static_cast<uint32_t>(op.object)); return;
      case SyncOp::kJoin: pwr_.Join(t, static_cast<uint32_t>(op.object)); return;
      case SyncOp::kSignal: pwr_.Signal(t, op.object); return;
      case SyncOp::kWait: pwr_.Wait(t, op.object); return;
      case SyncOp::kFresh: Forget(op.object, std::max<uint64_t>(1, op.size)); return;
    }
  }

  Variable& Var(uint64_t address) {
    auto it = vars_.find(address);
    if (it == vars_.end()) it = vars_.emplace(address, std::make_unique<Variable>(exact_ ? 0 : edge_bound_)).first;
    return *it->second;
  }

  // A freed or re-allocated range starts new variables; the exact variant keeps
  // the old ones alive for its second pass.
  void Forget(uint64_t address, uint64_t size) {
    auto retire = [&](auto it) {
      if (exact_) retired_.push_back(std::move(it->second));
      return vars_.erase(it);
    };
    if (size <= vars_.size()) {
      for (uint64_t a = address; a < address + size; ++a) {
        auto it = vars_.find(a);
        if (it != vars_.end()) retire(it);
      }
      return;
    }
    for (auto it = vars_.begin(); it != vars_.end();)
      it = it->first >= address && it->first - address < size ? retire(it) : std::next(it);
  }

  void Access(const Event& e, const LoweredOp& op) {
    const uint32_t t = e.tid;
    const bool write = op.op == SyncOp::kWrite;
    Variable& x = Var(op.object);
    const EventRef ref = EventRef::Of(e);
    bool write_read = false;
    if (!write) {
      // Write-read pairs (TR Def. 3.3) are decided before the dependency is added.
      const LastWrite& lw = x.last_write;
      if (lw.present) {
        write_read = lw.clock > pwr_.Clock(t).Get(lw.tid) && pwr_.locksets().Disjoint(lw.lockset, pwr_.Lockset(t));
        if (write_read && !exact_) AddRace(lw.ref, ref);
        pwr_.JoinClock(t, lw.vc);
      }
    }
    pwr_.W3(t);
    const VectorClock& v = pwr_.Clock(t);
    const uint64_t id = x.nodes.next_id();
    const w3::NodeRef f_ref{id, t, v.Get(t)};
    preds_.clear();
    partners_.clear();
    w3::SplitConcurrent(&x.rw, v, f_ref, &preds_, &partners_);
    AccessNode& f = x.nodes.Append(ref);
    f.lockset = pwr_.Lockset(t);
    f.write = write;
    for (const w3::NodeRef& p : preds_) f.preds.push_back(p);
    if (exact_) {
      if (write_read || !partners_.empty())
        pending_.push_back({&x, id, v, partners_, write_read, x.last_write.ref});
    } else if (!partners_.empty()) {
      ReportFrom(x, f, id, v, partners_);
    }
    if (write) {
      LastWrite& lw = x.last_write;
      lw.present = true;
      lw.ref = ref;
      lw.tid = t;
      lw.clock = f_ref.clock;
      lw.lockset = f.lockset;
      lw.vc.CopyFrom(v);
    }
    pwr_.Tick(t);
  }

  void ReportFrom(Variable& x, const AccessNode& f, uint64_t f_id, const VectorClock& v,
                  const std::vector<w3::NodeRef>& partners) {
    w3::ReportReachable(
        f, f_id, v, partners, pwr_.locksets(), [&](uint64_t i) { return x.nodes.Get(i); },
        [&](uint64_t g) { AddRace(x.nodes.Ref(g), x.nodes.Ref(f_id)); }, &stack_);
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
  RaceCollector collector_;
  std::unordered_map<uint64_t, std::unique_ptr<Variable>> vars_;
  std::vector<std::unique_ptr<Variable>> retired_;
  std::vector<Pending> pending_;
  std::vector<w3::NodeRef> preds_, partners_;
  std::vector<uint64_t> stack_;
};

}  // namespace

std::unique_ptr<Engine> CreateW3Engine(const AnalysisOptions&) {
  return std::make_unique<W3Engine>("w3", /*exact=*/true, /*history_bound=*/0, /*edge_bound=*/0);
}

std::unique_ptr<Engine> CreateW3LinearEngine(const AnalysisOptions& options) {
  // A chain of w3_edges edges (the TR's bound on edges(x)) spans w3_edges + 1 earlier
  // accesses, plus the current one.
  return std::make_unique<W3Engine>("w3-linear", /*exact=*/false, options.w3_history, options.w3_edges + 2);
}

}  // namespace seer
