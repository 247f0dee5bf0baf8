#include "predictor/engines/blocked/blocked_engine.h"

#include <algorithm>
#include <map>
#include <utility>
#include <vector>

#include "predictor/common/thread_ids.h"

namespace seer::predictor {
namespace {

// A lock a thread holds, with where it first took it (recursive holds count).
struct Held {
  uint64_t lock = 0;
  uint32_t depth = 0;
  bool shared = false;
  EventRef acquire;
};

// What a thread is doing at the end of the trace, as far as locks go.
struct ThreadLocks {
  std::vector<Held> held;
  bool requesting = false;  // its last event is a kLockRequest
  bool shared_request = false;
  EventRef request;
};

class BlockedEngine : public Engine {
 public:
  void Process(const Event* events, size_t n) override {
    for (size_t i = 0; i < n; ++i) {
      const Event& e = events[i];
      if (!thread_ids_.Accept(e)) continue;
      ThreadLocks& t = Of(e.tid);
      // Any later event of the thread ends its wait: it got the lock, or the
      // call failed (an error-checking mutex it holds already), or gave up.
      t.requesting = false;
      switch (e.kind) {
        case EventKind::kLockRequest:
          t.requesting = true;
          t.shared_request = e.mode == static_cast<uint8_t>(LockMode::kShared);
          t.request = EventRef::Of(e);
          break;
        case EventKind::kAcquire: Acquire(&t, e, e.object); break;
        case EventKind::kRelease: Release(&t, e.object); break;
        case EventKind::kCondWaitBegin: Release(&t, e.aux); break;
        case EventKind::kCondWaitEnd: Acquire(&t, e, e.aux); break;  // the mutex taken again
        default: break;
      }
    }
  }

  Status Finish(Findings* findings) override {
    if (!thread_ids_.status().ok()) return thread_ids_.status();
    // Who holds each lock at the end, in thread order.
    std::map<uint64_t, std::vector<uint32_t>> holders;
    for (uint32_t tid = 0; tid < threads_.size(); ++tid)
      for (const Held& h : threads_[tid].held) holders[h.lock].push_back(tid);
    // The threads each waiting thread waits for: the holders of its lock, but
    // for a read-mode request only those holding it for writing.
    std::map<uint32_t, std::vector<uint32_t>> waits_for;
    for (uint32_t tid = 0; tid < threads_.size(); ++tid) {
      const ThreadLocks& t = threads_[tid];
      if (!t.requesting) continue;
      auto it = holders.find(t.request.object);
      if (it == holders.end()) continue;
      for (uint32_t holder : it->second)
        if (!t.shared_request || !HeldFor(holder, t.request.object).shared) waits_for[tid].push_back(holder);
    }
    // Simple cycles of the wait-for graph, each found once from its smallest thread.
    for (const auto& [start, unused] : waits_for) {
      std::vector<uint32_t> path = {start};
      Search(waits_for, start, &path, findings);
    }
    return Status::Ok();
  }

 private:
  static constexpr size_t kMaxCycles = 100;

  ThreadLocks& Of(uint32_t tid) {
    if (tid >= threads_.size()) threads_.resize(tid + 1);
    return threads_[tid];
  }

  const Held& HeldFor(uint32_t tid, uint64_t lock) const {
    for (const Held& h : threads_[tid].held)
      if (h.lock == lock) return h;
    static const Held kNone;
    return kNone;
  }

  static void Acquire(ThreadLocks* t, const Event& e, uint64_t lock) {
    for (Held& h : t->held)
      if (h.lock == lock) {
        ++h.depth;
        return;
      }
    const bool shared = e.kind == EventKind::kAcquire && e.mode == static_cast<uint8_t>(LockMode::kShared);
    t->held.push_back({lock, 1, shared, EventRef::Of(e)});
  }

  static void Release(ThreadLocks* t, uint64_t lock) {
    for (size_t i = t->held.size(); i-- > 0;) {
      if (t->held[i].lock != lock) continue;
      if (--t->held[i].depth == 0) t->held.erase(t->held.begin() + static_cast<long>(i));
      return;
    }
  }

  // Extends `path` (from its first thread, the cycle's smallest) along the
  // wait-for edges; an edge back to the start closes a cycle, reported at once.
  void Search(const std::map<uint32_t, std::vector<uint32_t>>& waits_for, uint32_t start, std::vector<uint32_t>* path,
              Findings* findings) {
    auto it = waits_for.find(path->back());
    if (it == waits_for.end()) return;
    for (uint32_t next : it->second) {
      if (reported_ >= kMaxCycles) return;
      if (next == start) {
        Report(*path, findings);
        continue;
      }
      if (next < start || std::find(path->begin(), path->end(), next) != path->end()) continue;
      path->push_back(next);
      Search(waits_for, start, path, findings);
      path->pop_back();
    }
  }

  // Thread k of the cycle holds the lock thread k-1 waits for, and waits for
  // the lock thread k+1 holds.
  void Report(const std::vector<uint32_t>& cycle, Findings* findings) {
    Deadlock d;
    d.engine = "blocked";
    d.guarantee = Guarantee::kHappened;  // the recorded run is the witness (an empty schedule)
    for (size_t k = 0; k < cycle.size(); ++k) {
      const ThreadLocks& t = threads_[cycle[k]];
      const uint32_t prev = cycle[(k + cycle.size() - 1) % cycle.size()];
      const Held& held = HeldFor(cycle[k], threads_[prev].request.object);
      d.cycle.push_back({cycle[k], held.lock, held.acquire, t.request.object, t.request});
    }
    findings->deadlocks.push_back(std::move(d));
    ++reported_;
  }

  ThreadIdCheck thread_ids_;
  std::vector<ThreadLocks> threads_;
  size_t reported_ = 0;
};

}  // namespace

std::unique_ptr<Engine> NewBlockedEngine(const AnalysisOptions&) { return std::make_unique<BlockedEngine>(); }

}  // namespace seer::predictor
