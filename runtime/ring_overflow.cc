// What a thread does when its ring has no room where the fast paths write: the
// slow paths behind rt_state.h's Put* functions, the wait for the drainer
// (bounded, so that a stopped recorder never hangs the program) and the count
// of what is dropped after it. Nothing here runs per access unless the ring is full.
#include <sched.h>
#include <time.h>

#include "runtime/fuzz_scheduler.h"
#include "runtime/rt_state.h"
#include "runtime/watchpoints.h"

namespace seer::rt {

void PutShortSlow(uint8_t kind, uint64_t size, uint64_t object, uint64_t pc) {
  if (ThreadState* ts = RecordingThread())
    PutShort(ts, kind, size, object, pc);
  else if (FuzzOn())
    FuzzFunction(kind == K(EventKind::kFuncEntry), pc);
}

void PutAccessSlow(uint8_t kind, uint64_t size, uint64_t object, uint64_t pc) {
  if (__builtin_expect(AccessFiltersOn(), 0) && FilteredAccess(kind, object, size)) return;
  if (__builtin_expect(g_rt.watch_only, 0)) {
    // --sync=none: the ring is paused for good, nothing to publish.
    WatchCount(object, size, kind == K(EventKind::kWrite), pc);
    return;
  }
  ThreadState* ts = RecordingThread();
  if (ts == nullptr) {
    // Not recording accesses (a paused ring): seer fuzz.
    FuzzAccess(object, size, kind == K(EventKind::kWrite), pc);
    return;
  }
  if (!CompactFits(CompactOffset(pc, ts->last_pc))) {
    PutShort(ts, kind, size, object, pc);
    return;
  }
  // After a refill the cursor is below `end`: a compact record always fits.
  if (TryCompact(ts, CompactTag(kind, size), object, pc) || !Refill(ts, kCompactWords, kind)) return;
  TryCompact(ts, CompactTag(kind, size), object, pc);
}

void PutShortWrapping(ThreadState* ts, uint8_t kind, uint64_t size, uint64_t object, uint64_t pc) {
  if (!Refill(ts, kShortWords, kind) || TryShort(ts, kind, size, object, pc)) return;
  // The cursor is at the ring's last word: the record straddles the end.
  WriteShortAnywhere(ts, kind, size, object, pc);
}

ThreadState* PausedThread(ThreadState* ts) {
  const uint64_t h = Head(ts);
  if (ts->published != h) Publish(ts, h);
  return nullptr;
}

bool Refill(ThreadState* ts, uint64_t words, uint8_t kind) {
  const uint64_t h = Head(ts);
  Publish(ts, h);  // the drainer can only make room from what it sees
  const bool room = h + words <= ts->limit || MakeRoom(ts, words, kind);
  SetHead(ts, h);
  return room;
}

bool MakeRoom(ThreadState* ts, uint64_t words, uint8_t kind) {
  // Attach mode: after a detach the program never waits, and writes no more.
  if (RecorderGone(/*check_pid=*/ts->stalled)) {
    StopRecording();
    return false;
  }
  const uint64_t capacity = ts->mask + 1;
  const uint64_t head = Head(ts);
  uint64_t tail = ts->desc->tail.load(std::memory_order_acquire);
  if (head + words <= tail + capacity) {
    ts->limit = tail + capacity;
    ts->stalled = false;
    return true;
  }
  if (!ts->stalled) {
    // Wait for the drainer, but never forever: a stopped or dead recorder must
    // not hang the program. Loss after the wait is counted, not silent.
    const uint64_t deadline = NowNs() + g_rt.shm->wait_ns;
    int spins = 0;
    for (;;) {
      tail = ts->desc->tail.load(std::memory_order_acquire);
      if (head + words <= tail + capacity) {
        ts->limit = tail + capacity;
        return true;
      }
      if (NowNs() >= deadline) break;
      if (RecorderGone(/*check_pid=*/true)) {
        StopRecording();
        return false;
      }
      // Yield a little, then sleep: the drainer needs a CPU more than we do.
      if (++spins < 8) {
        sched_yield();
      } else {
        timespec pause = {0, 100000};
        SleepUnrecorded(&pause, nullptr);
      }
    }
    ts->stalled = true;
  }
  CountLost(ts, kind);
  return false;
}

void CountLost(ThreadState* ts, uint8_t kind) {
  // One writer per ring (rt_state.h, rule 1): no locked add needed.
  auto& lost = ts->desc->lost[kind < kLostKinds ? kind : kLostKinds - 1];
  lost.store(lost.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
}

}  // namespace seer::rt
