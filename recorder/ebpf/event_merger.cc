// The merger: reorder window, per-thread queues behind closed gates, lock state.
#include "recorder/ebpf/event_merger.h"

#include <algorithm>
#include <cstring>

namespace seer::recorder {
namespace {

constexpr uint32_t kNoThread = UINT32_MAX;

// Kinds 0..23 of the BPF record are seer's own; the static_asserts keep them equal.
static_assert(SEER_EV_ACQUIRE == static_cast<int>(EventKind::kAcquire));
static_assert(SEER_EV_RELEASE == static_cast<int>(EventKind::kRelease));
static_assert(SEER_EV_COND_WAIT_BEGIN == static_cast<int>(EventKind::kCondWaitBegin));
static_assert(SEER_EV_COND_WAIT_END == static_cast<int>(EventKind::kCondWaitEnd));
static_assert(SEER_EV_SIGNAL == static_cast<int>(EventKind::kSignal));
static_assert(SEER_EV_WAIT == static_cast<int>(EventKind::kWait));
static_assert(SEER_EV_BARRIER_ARRIVE == static_cast<int>(EventKind::kBarrierArrive));
static_assert(SEER_EV_BARRIER_DEPART == static_cast<int>(EventKind::kBarrierDepart));
static_assert(SEER_EV_JOIN == static_cast<int>(EventKind::kJoin));
static_assert(SEER_EV_THREAD_EXIT == static_cast<int>(EventKind::kThreadEnd));
static_assert(SEER_ACQ_BLOCKING == static_cast<int>(AcquireHow::kBlocking));
static_assert(SEER_ACQ_TRY == static_cast<int>(AcquireHow::kTry));
static_assert(SEER_ACQ_TIMED == static_cast<int>(AcquireHow::kTimed));

std::string CommFromEvent(const sync_event& e) {
  char comm[17] = {};
  memcpy(comm, &e.object, 8);
  memcpy(comm + 8, &e.aux, 8);
  return std::string(comm);
}

}  // namespace

EventMerger::Thread& EventMerger::ThreadFor(pid_t os_tid) {
  Thread& t = threads_[os_tid];
  t.os_tid = os_tid;
  return t;
}

uint32_t EventMerger::AssignTid(Thread& t) {
  t.tid = static_cast<uint32_t>(by_tid_.size());
  by_tid_.push_back(t.os_tid);
  t.begun = true;
  return t.tid;
}

Status EventMerger::Put(uint32_t tid, EventKind kind, uint64_t object, uint64_t aux, uint64_t pc, uint8_t mode) {
  Event ev;
  ev.tid = tid;
  ev.kind = kind;
  ev.object = object;
  ev.aux = aux;
  ev.pc = pc;
  ev.mode = mode;
  origin_ = {by_tid_[tid], kind == EventKind::kThreadBegin ? 0 : stamp_};
  return sink_(ev);
}

Status EventMerger::BeginThread(pid_t os_tid, int64_t parent, const std::string& name) {
  Thread& t = ThreadFor(os_tid);
  if (t.begun) return Status::Ok();
  AssignTid(t);
  t.parent = parent;
  t.name = name;
  return Put(t.tid, EventKind::kThreadBegin, 0, 0, 0);
}

// An acquire is recorded when its thread enters the lock call, but the thread
// may get the lock much later: two threads that enter while it is taken are
// ordered by who got it, not by who asked first. Nothing of the thread happens
// between getting the lock and its next record, so the acquire is placed just
// before that record, after every release that other threads made before it
// (a lock has one holder at a time). Without this, a waiter that asked first
// would be shown acquiring before the thread that really held the lock, and the
// accesses both made under it would look unordered.
void EventMerger::Add(const sync_event& e) {
  const pid_t os = static_cast<pid_t>(e.tid);
  auto waiting = placing_.find(os);
  if (waiting != placing_.end()) {
    Record a = waiting->second;
    placing_.erase(waiting);
    a.key = std::max(a.e.ts, e.ts > 0 ? e.ts - 1 : 0);
    window_.push(a);
  }
  Record r{e, next_seq_++, e.ts};
  if (e.kind == SEER_EV_ACQUIRE)
    placing_.emplace(os, r);
  else
    window_.push(r);
}

Status EventMerger::Advance(uint64_t watermark_ns) {
  while (!window_.empty() && window_.top().key <= watermark_ns) {
    Record r = window_.top();
    window_.pop();
    Status st = Dispatch(r);
    if (!st.ok()) return st;
  }
  return Status::Ok();
}

Status EventMerger::Finish(const RanOnFn& ran_on) {
  // Acquires whose thread never moved on (it ended in the lock, or its next
  // record was lost) keep the time they were recorded at.
  for (auto& [os, a] : placing_) {
    if (ran_on && !ran_on(os, a.e.stamp)) {
      ++stats_.pending_acquires;
      continue;
    }
    window_.push(a);
  }
  placing_.clear();
  Status st = Advance(UINT64_MAX);
  if (!st.ok()) return st;
  return Retry(/*force=*/true);
}

Status EventMerger::Dispatch(const Record& r) {
  // An acquire placed at its thread's next record may fall behind the window
  // on purpose (the thread held the lock a long time); only records that
  // arrived late count as late.
  if (r.key < last_released_ts_)
    stats_.late += r.key == r.e.ts;
  else
    last_released_ts_ = r.key;
  if (r.e.kind == SEER_EV_CLONE) announced_.insert(static_cast<pid_t>(r.e.object));
  Thread& t = ThreadFor(static_cast<pid_t>(r.e.tid));
  if (!t.queue.empty() || !CanEmit(t, r.e)) {
    t.queue.push_back(r);
    blocked_.insert(t.os_tid);
    return Status::Ok();
  }
  Status st = Emit(t, r.e);
  if (!st.ok() || blocked_.empty()) return st;
  return Retry(/*force=*/false);
}

Status EventMerger::Retry(bool force) {
  while (!blocked_.empty()) {
    Thread* best = nullptr;
    for (pid_t os : blocked_) {
      Thread& t = threads_[os];
      const Record& head = t.queue.front();
      if (!CanEmit(t, head.e)) continue;
      if (!best || best->queue.front() > head) best = &t;
    }
    if (!best && force) {
      for (pid_t os : blocked_) {
        Thread& t = threads_[os];
        if (!best || best->queue.front() > t.queue.front()) best = &t;
      }
      ++stats_.forced;
    }
    if (!best) break;
    sync_event e = best->queue.front().e;
    best->queue.pop_front();
    if (best->queue.empty()) blocked_.erase(best->os_tid);
    // A forced record may be a child whose clone never came: begin it here.
    if (force) announced_.erase(best->os_tid);
    Status st = Emit(*best, e);
    if (!st.ok()) return st;
  }
  return Status::Ok();
}

bool EventMerger::CanAcquire(uint64_t lock, uint32_t tid, bool shared) const {
  auto it = locks_.find(lock);
  if (it == locks_.end()) return true;
  const Lock& l = it->second;
  if (l.holder != kNoThread) return l.holder == tid;
  if (shared) return true;
  for (const auto& [reader, n] : l.readers)
    if (reader != tid && n > 0) return false;
  return true;
}

bool EventMerger::CanEmit(const Thread& t, const sync_event& e) const {
  if (!t.begun && announced_.count(t.os_tid)) return false;  // its fork is not out yet
  uint32_t tid = t.begun ? t.tid : kNoThread - 1;
  switch (e.kind) {
    case SEER_EV_ACQUIRE: return CanAcquire(e.object, tid, e.mode == 1);
    case SEER_EV_COND_WAIT_END:
    case SEER_EV_COND_TIMEOUT: return CanAcquire(e.aux, tid, false);
    case SEER_EV_WAIT: {
      auto it = sem_tokens_.find(e.object);
      return it == sem_tokens_.end() || it->second > 0;
    }
    case SEER_EV_BARRIER_DEPART: {
      auto it = barriers_.find(e.object);
      if (it == barriers_.end() || it->second.count == 0) return true;
      const Barrier& b = it->second;
      return b.arrivals >= (b.departures / b.count + 1) * b.count;
    }
    case SEER_EV_JOIN: {
      auto h = handles_.find(e.object);
      if (h == handles_.end()) return true;
      auto c = threads_.find(h->second);
      return c == threads_.end() || c->second.ended;
    }
    default: return true;
  }
}

Status EventMerger::Emit(Thread& t, const sync_event& e) {
  stamp_ = e.stamp;
  if (!t.begun) {
    // A thread we never saw created (attached late, or its clone record was lost).
    AssignTid(t);
    Status st = Put(t.tid, EventKind::kThreadBegin, 0, 0, 0);
    if (!st.ok()) return st;
  }
  const uint64_t pc = e.pc;
  switch (e.kind) {
    case SEER_EV_ACQUIRE: {
      Lock& l = locks_[e.object];
      if (e.mode == 1) {
        if (l.holder == t.tid) return Status::Ok();       // rdlock under own wrlock fails (EDEADLK)
        if (l.readers[t.tid]++ > 0) return Status::Ok();  // only the outermost hold counts
        return Put(t.tid, EventKind::kAcquire, e.object, e.aux, pc, static_cast<uint8_t>(LockMode::kShared));
      }
      if (l.holder == t.tid) {  // recursive mutex: only the outermost pair counts
        ++l.depth;
        return Status::Ok();
      }
      l.holder = t.tid;
      l.depth = 1;
      // aux: the call's AcquireHow (a trylock or timed lock never blocks forever).
      return Put(t.tid, EventKind::kAcquire, e.object, e.aux, pc, static_cast<uint8_t>(LockMode::kExclusive));
    }
    case SEER_EV_RELEASE: {
      auto it = locks_.find(e.object);
      if (it != locks_.end()) {
        Lock& l = it->second;
        if (l.holder == t.tid) {
          if (--l.depth > 0) return Status::Ok();
          l.holder = kNoThread;
          return Put(t.tid, EventKind::kRelease, e.object, 0, pc, static_cast<uint8_t>(LockMode::kExclusive));
        }
        auto r = l.readers.find(t.tid);
        if (r != l.readers.end()) {
          if (--r->second > 0) return Status::Ok();
          l.readers.erase(r);
          return Put(t.tid, EventKind::kRelease, e.object, 0, pc, static_cast<uint8_t>(LockMode::kShared));
        }
      }
      ++stats_.unmatched_releases;
      return Status::Ok();
    }
    case SEER_EV_COND_WAIT_BEGIN: {
      auto it = locks_.find(e.aux);
      if (it != locks_.end() && it->second.holder == t.tid) {
        it->second.holder = kNoThread;
        it->second.depth = 0;
      }
      return Put(t.tid, EventKind::kCondWaitBegin, e.object, e.aux, pc);
    }
    case SEER_EV_COND_WAIT_END:
    case SEER_EV_COND_TIMEOUT: {
      Lock& l = locks_[e.aux];
      l.holder = t.tid;
      l.depth = 1;
      // A timed-out wait was not woken: it only takes the mutex back.
      if (e.kind == SEER_EV_COND_TIMEOUT)
        return Put(t.tid, EventKind::kAcquire, e.aux, 0, pc, static_cast<uint8_t>(LockMode::kExclusive));
      return Put(t.tid, EventKind::kCondWaitEnd, e.object, e.aux, pc);
    }
    case SEER_EV_SIGNAL: {
      auto it = sem_tokens_.find(e.object);
      if (it != sem_tokens_.end()) ++it->second;
      return Put(t.tid, EventKind::kSignal, e.object, 0, pc);
    }
    case SEER_EV_WAIT: {
      auto it = sem_tokens_.find(e.object);
      if (it != sem_tokens_.end()) --it->second;
      return Put(t.tid, EventKind::kWait, e.object, 0, pc);
    }
    case SEER_EV_BARRIER_ARRIVE:
    case SEER_EV_BARRIER_DEPART: {
      auto it = barriers_.find(e.object);
      bool arrive = e.kind == SEER_EV_BARRIER_ARRIVE;
      if (it != barriers_.end()) ++(arrive ? it->second.arrivals : it->second.departures);
      return Put(t.tid, arrive ? EventKind::kBarrierArrive : EventKind::kBarrierDepart, e.object, 0, pc);
    }
    case SEER_EV_JOIN: {
      auto h = handles_.find(e.object);
      auto c = h == handles_.end() ? threads_.end() : threads_.find(h->second);
      if (c == threads_.end() || !c->second.begun) {
        ++stats_.unknown_joins;
        return Status::Ok();
      }
      return Put(t.tid, EventKind::kJoin, c->second.tid, 0, pc);
    }
    case SEER_EV_THREAD_EXIT: {
      if (t.ended) return Status::Ok();
      t.ended = true;
      t.name = CommFromEvent(e);
      return Put(t.tid, EventKind::kThreadEnd, 0, 0, 0);
    }
    case SEER_EV_CLONE: {
      pid_t child_os = static_cast<pid_t>(e.object);
      t.last_child = child_os;
      Thread& child = ThreadFor(child_os);
      announced_.erase(child_os);
      if (child.begun) return Status::Ok();  // its records were forced out before the clone
      AssignTid(child);
      child.parent = t.tid;
      Status st = Put(t.tid, EventKind::kFork, child.tid, 0, pc);
      if (!st.ok()) return st;
      return Put(child.tid, EventKind::kThreadBegin, 0, 0, 0);
    }
    case SEER_EV_CREATE_RET:
      if (t.last_child != 0) handles_[e.object] = t.last_child;
      return Status::Ok();
    case SEER_EV_SEM_INIT:
      sem_tokens_[e.object] = static_cast<int64_t>(static_cast<uint32_t>(e.aux));
      return Status::Ok();
    case SEER_EV_BARRIER_INIT: barriers_[e.object] = Barrier{static_cast<uint32_t>(e.aux), 0, 0}; return Status::Ok();
    case SEER_EV_PROCESS_FORK: ++stats_.process_forks; return Status::Ok();
    case SEER_EV_EXEC:
      // The thread's program ends here (the recorder stops at an exec); it keeps its name.
      if (t.ended) return Status::Ok();
      t.ended = true;
      return Put(t.tid, EventKind::kThreadEnd, 0, 0, 0);
    default: return Status::Internal("unknown BPF record kind " + std::to_string(e.kind));
  }
}

std::vector<ThreadInfo> EventMerger::Threads() const {
  std::vector<ThreadInfo> out;
  for (size_t i = 0; i < by_tid_.size(); ++i) {
    const Thread& t = threads_.at(by_tid_[i]);
    ThreadInfo info;
    info.tid = static_cast<uint32_t>(i);
    info.os_tid = t.os_tid;
    info.parent = t.parent;
    info.name = t.name;
    out.push_back(std::move(info));
  }
  return out;
}

void EventMerger::SetThreadName(pid_t os_tid, const std::string& name) {
  auto it = threads_.find(os_tid);
  if (it != threads_.end() && !name.empty()) it->second.name = name;
}

std::vector<pid_t> EventMerger::LiveThreads() const {
  std::vector<pid_t> out;
  for (pid_t os : by_tid_)
    if (!threads_.at(os).ended) out.push_back(os);
  return out;
}

}  // namespace seer::recorder
