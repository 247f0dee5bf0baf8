#include "predictor/engines/atomic_blocks/atomic_blocks_engine.h"

#include <set>
#include <tuple>
#include <unordered_map>
#include <utility>
#include <vector>

#include "predictor/common/sync_ops.h"

namespace seer::predictor {
namespace {

constexpr uint32_t kNone = UINT32_MAX;

// A conflict edge: `to` happened after an event of this transaction (`from`) it
// conflicts with.
struct Edge {
  uint32_t to;
  EventRef from;
};

struct Txn {
  bool block = false;     // a marked block; otherwise one event outside any block
  bool open = false;      // a block whose end has not been seen
  bool reported = false;  // one report per block instance
  std::vector<Edge> out;
};

// The last transaction (and its event) that did something.
struct Last {
  uint32_t txn = kNone;
  EventRef event;
};

struct ThreadState {
  uint32_t depth = 0;        // nesting of begin/end; the outermost pair is the block
  uint32_t current = kNone;  // the open block
  Last last;                 // the thread's latest transaction and event (program order)
};

struct LockState {
  Last exclusive;            // latest exclusive release
  std::vector<Last> shared;  // read-mode releases since then
};

struct VarState {
  Last write;
  std::vector<Last> reads;  // since the last write
};

class AtomicBlocksEngine final : public Engine {
 public:
  void Process(const Event* events, size_t n) override {
    for (size_t i = 0; i < n; ++i) Step(events[i]);
  }

  Status Finish(Findings* findings) override {
    for (AtomicityViolation& v : found_) findings->atomicity.push_back(std::move(v));
    return Status::Ok();
  }

 private:
  uint32_t NewTxn(ThreadState* ts, uint32_t tid, const EventRef& e, bool block) {
    const uint32_t id = static_cast<uint32_t>(txns_.size());
    txns_.push_back(Txn{block, block, false, {}});
    if (ts->last.txn != kNone) {
      AddEdge(ts->last, id, e);  // program order
    } else {
      auto f = forks_.find(tid);
      if (f != forks_.end()) AddEdge(f->second, id, e);
    }
    return id;
  }

  // Is `target` reachable from `from` along conflict edges? On success `*via`
  // is the event of `from` whose edge starts the path.
  bool Reaches(uint32_t from, uint32_t target, EventRef* via) {
    ++stamp_;
    if (seen_.size() < txns_.size()) seen_.resize(txns_.size(), 0);
    seen_[from] = stamp_;
    for (const Edge& first : txns_[from].out) {
      stack_.assign(1, first.to);
      while (!stack_.empty()) {
        const uint32_t t = stack_.back();
        stack_.pop_back();
        if (t == target) {
          *via = first.from;
          return true;
        }
        if (seen_[t] == stamp_) continue;
        seen_[t] = stamp_;
        for (const Edge& e : txns_[t].out) stack_.push_back(e.to);
      }
    }
    return false;
  }

  // `source` conflicts with `event`, which runs in transaction `to`.
  void AddEdge(const Last& source, uint32_t to, const EventRef& event) {
    const uint32_t from = source.txn;
    if (from == kNone || from == to) return;
    Txn& t = txns_[to];
    EventRef via;
    if (t.block && t.open && !t.reported && !t.out.empty() && Reaches(to, from, &via)) {
      t.reported = true;
      if (reported_.insert({via.pc, source.event.pc, event.pc}).second) {
        AtomicityViolation v;
        v.engine = "atomic-blocks";
        v.pattern = "not-conflict-serializable";
        v.local_first = via;
        v.remote = source.event;
        v.local_second = event;
        found_.push_back(std::move(v));  // the recorded run is the witness: no schedule
      }
    }
    std::vector<Edge>& out = txns_[from].out;
    if (out.empty() || out.back().to != to) out.push_back({to, source.event});
  }

  void Step(const Event& e) {
    ThreadState& ts = threads_[e.tid];
    const EventRef ref = EventRef::Of(e);
    if (e.kind == EventKind::kAtomicBegin) {
      if (ts.depth++ == 0) {
        ts.current = NewTxn(&ts, e.tid, ref, true);
        ts.last = {ts.current, ref};
      }
      return;
    }
    if (e.kind == EventKind::kAtomicEnd) {
      if (ts.depth > 0 && --ts.depth == 0) {
        txns_[ts.current].open = false;
        ts.current = kNone;
      }
      return;
    }
    ops_.clear();
    lowering_.Lower(e, [&](const LoweredOp& op) { ops_.push_back(op); });
    if (ops_.empty()) return;
    const uint32_t txn = ts.current != kNone ? ts.current : NewTxn(&ts, e.tid, ref, false);
    const Last me{txn, ref};
    ts.last = me;
    for (const LoweredOp& op : ops_) {
      switch (op.op) {
        case SyncOp::kRead: {
          VarState& v = vars_[op.object];
          AddEdge(v.write, txn, ref);
          if (v.reads.empty() || v.reads.back().txn != txn) v.reads.push_back(me);
          break;
        }
        case SyncOp::kWrite: {
          VarState& v = vars_[op.object];
          AddEdge(v.write, txn, ref);
          for (const Last& r : v.reads) AddEdge(r, txn, ref);
          v.reads.clear();
          v.write = me;
          break;
        }
        case SyncOp::kAcquire: {
          LockState& l = locks_[op.object];
          AddEdge(l.exclusive, txn, ref);
          if (!op.shared)
            for (const Last& r : l.shared) AddEdge(r, txn, ref);
          break;
        }
        case SyncOp::kRelease: {
          LockState& l = locks_[op.object];
          if (op.shared) {
            l.shared.push_back(me);
          } else {
            l.exclusive = me;
            l.shared.clear();
          }
          break;
        }
        case SyncOp::kFork: forks_[static_cast<uint32_t>(op.object)] = me; break;
        case SyncOp::kJoin: {
          auto it = threads_.find(static_cast<uint32_t>(op.object));
          if (it != threads_.end()) AddEdge(it->second.last, txn, ref);
          break;
        }
        case SyncOp::kSignal: signals_[op.object][e.tid] = me; break;
        case SyncOp::kWait:
          for (const auto& [tid, last] : signals_[op.object]) AddEdge(last, txn, ref);
          break;
        case SyncOp::kEndSignals: signals_.erase(op.object); break;
        case SyncOp::kFresh:
        case SyncOp::kFree: vars_.erase(op.object); break;
      }
    }
  }

  std::vector<Txn> txns_;
  std::unordered_map<uint32_t, ThreadState> threads_;
  std::unordered_map<uint64_t, LockState> locks_;
  std::unordered_map<uint64_t, VarState> vars_;
  std::unordered_map<uint32_t, Last> forks_;                                  // child -> the fork
  std::unordered_map<uint64_t, std::unordered_map<uint32_t, Last>> signals_;  // object -> thread -> latest
  EventLowering lowering_;
  std::vector<LoweredOp> ops_;
  std::vector<uint32_t> seen_, stack_;
  uint32_t stamp_ = 0;
  std::set<std::tuple<uint64_t, uint64_t, uint64_t>> reported_;  // pcs of (via, remote, closing event)
  std::vector<AtomicityViolation> found_;
};

}  // namespace

std::unique_ptr<Engine> NewAtomicBlocksEngine(const AnalysisOptions&) { return std::make_unique<AtomicBlocksEngine>(); }

}  // namespace seer::predictor
