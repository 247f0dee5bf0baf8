// Per-thread state of the in-process runtime and the always-inlined fast paths
// that append records to the thread's ring. Every entry point (compiler hooks,
// interposed libc and pthread functions) reaches its thread through the one
// thread-local pointer `tls_state`; nothing here takes a lock or blocks.
//
// Ground rules (docs/runtime.md, "Ground rules: one writer per ring"):
//  1. A ring has one writer, and a writer is never re-entered. The append fast
//     paths are not reentrant (they load the cursor, store the record, then
//     move the cursor): nothing may append to a ThreadState between those steps.
//  2. A signal handler never writes to the ring of the code it interrupted.
//     The runtime installs every handler the program gives sigaction() or
//     signal() behind a trampoline (interpose_signal.cc) that points the
//     thread's state slot at a ring of its own (the thread's signal ring) for
//     the handler's duration and back after it; a nested handler, or one in a
//     thread not recording, records nothing. The fast paths pay nothing for
//     it: they load the slot once and never look at it again.
//  3. A thread that shares its TLS block with another (raw clone() with
//     CLONE_VM and without CLONE_SETTLS) never sees `tls_state` set: the
//     block's `tls_shared` flag sends its hooks to the slow path, which finds
//     the thread's own state by its kernel tid (shared_tls.h). Such threads
//     pay a gettid() per event; other threads pay nothing.
//  4. Order numbers are taken after room is reserved and written at once
//     (PutOrdered); by rules 1-3 no other writer can come in between.
// Everything the slow paths do in a handler (ClaimRing, StartBareThread,
// the shared-TLS table) is lock-free and async-signal-safe.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <new>

#include "seer/event.h"
#include "seer/ring_layout.h"
#include "seer/ring_record.h"

#define SEER_RT_INLINE inline __attribute__((always_inline))
#define SEER_RT_NOINLINE __attribute__((noinline))
#define SEER_RT_EXPORT extern "C" __attribute__((visibility("default")))

// The registration point of the eBPF recorder (rt_state.cc): `counter` points
// at the calling thread's write cursor and origin (ThreadState's first two
// words), from which every sync probe computes how many words the thread has
// written, to place its event among the thread's records.
SEER_RT_EXPORT void __seer_register_access_counter(const uint64_t* counter);

namespace seer::rt {

// A thread's writer state. It lives in its ring's descriptor
// (RingDesc::producer), not in TLS: once the target is gone the drainer still
// finds there how far the thread wrote (WrittenWords), including what it had
// not published. The first line holds what the per-access hooks touch.
struct ThreadState {
  uint64_t* cursor;    // where the next record goes
  uint64_t origin;     // cursor - origin = 8 * the head (words written since the ring began)
  uint64_t* end;       // the fast paths write below this: the ring's end, the room, the next publication
  uint64_t last_pc;    // the pc rule's last pc (ring_record.h): compact records are relative to it
  uint64_t* data;      // the ring's words, in shared memory
  uint64_t mask;       // ring capacity - 1
  uint64_t limit;      // the head may grow to this without looking at the drainer's tail
  uint64_t published;  // the head as last stored to desc->head
  RingDesc* desc;
  uint32_t ring;
  int32_t os_tid;       // the id glibc writes as a lock's owner: the kernel tid, but the TLS block owner's for
                        // a thread sharing its block (clone() without CLONE_SETTLS) and for a signal ring
  bool stalled;         // the drainer made no room within wait_ns last time: drop at once
  bool repeat_marks;    // Globals::repeat_marks, here where the writers look
  uint16_t ref_len;     // repeat marks (EndSegment): the reference segment's words, 0 for none
  uint16_t ref_misses;  // repeat marks: segments compared in a row that did not repeat
  bool handlers_ran;    // a signal handler ran on the thread since its last wait for them (WaitForHandlers)
  // Inside the system call of a blocking interposer, no append half-way: a
  // handler that runs now records into this ring (BlockingCall, signal_delivery.h).
  bool in_blocking_call;
  // Repeat marks: where the open segment began (the head just past the last
  // ordered record; ~0 before the first) and the pc rule's last pc there; where
  // the reference segment begins and its last pc before it.
  uint64_t seg_start;
  uint64_t seg_pc;
  uint64_t ref_start;
  uint64_t ref_pc;
};
static_assert(offsetof(ThreadState, cursor) == kProducerCursor * 8 &&
                  offsetof(ThreadState, origin) == kProducerOrigin * 8 &&
                  sizeof(ThreadState) <= sizeof(RingDesc::producer),
              "WrittenWords (ring_layout.h) and the eBPF stamp read the cursor and origin by position");

struct Globals {
  ShmHeader* shm = nullptr;
  bool active = false;        // recording: the shared area is mapped and ours
  bool sync_inproc = false;   // emit synchronisation events from the pthread interposers
  bool futex_stamps = false;  // each thread registers its counter for the futex tracepoints
  bool injected = false;      // loaded into a running process (attach_inject.cc): the interposers record
  bool hold_times = false;    // releases carry how long the lock was held (kOptionHoldTimes)
  bool repeat_marks = false;  // repeated segments are marked, not written again (kOptionRepeatMarks)
  bool watch_only = false;    // only the watches record (kOptionWatchOnly): accesses skip the ring
};
extern Globals g_rt;

extern __thread ThreadState* tls_state;

// What a thread's annotations ignore: its reads, writes and synchronisation
// (the depth of each Begin not yet ended; annotations.h).
struct ThreadIgnores {
  uint32_t reads;
  uint32_t writes;
  uint32_t sync;
};

// What the runtime keeps of a thread besides its writer state: in TLS
// (tls_vars), or, for a thread that shares its TLS block, in its entry of
// the shared-TLS table (shared_tls.h).
struct ThreadVars {
  bool finished;              // its kThreadEnd is written (or it found no ring): no more records
  bool attaching;             // in runtime code that must not record or claim a ring
  bool no_signal_ring;        // its signal handlers found no ring once: they record nothing
  uint32_t signal_depth;      // its signal handlers running (interpose_signal.cc)
  ThreadState* signal_state;  // the ring its signal handlers write to; null before the first
  // The handlers running, outermost first (the first kHandlerFrames): what
  // each found in the state slot, and its trampoline's frame. A longjmp to a
  // frame above a trampoline's leaves that handler (interpose_signal.cc).
  struct HandlerFrame {
    ThreadState* outer;
    bool outer_attaching;
    uint64_t frame;
    ThreadIgnores ignores;  // the interrupted code's, put back when the handler ends
  };
  static constexpr uint32_t kHandlerFrames = 4;
  HandlerFrame handler_frames[kHandlerFrames];
};
extern __thread ThreadVars tls_vars;

// Set in a TLS block that threads made by clone() without CLONE_SETTLS share
// (rule 3 above; interpose_clone.cc). `tls_state` stays null in such a block.
extern __thread bool tls_shared;
// The kernel tid glibc's TCB in that block names (the block's owner): what
// glibc writes as a mutex's owner for every thread that shares it.
extern __thread int32_t tls_owner_tid;

// The calling thread's state slot and vars: the TLS ones, or its entry in the
// shared-TLS table (added when it has none). Both null when the table is full.
// Slow paths only (a gettid() in a shared block).
struct ThreadSlot {
  ThreadState** state;
  ThreadVars* vars;
};
ThreadSlot CurrentSlot();

// Opens ring `ring` (claimed) for the calling thread and writes its
// kThreadBegin; sets no slot. `glibc_tid`: the id glibc writes as the owner
// of the locks the thread takes (ThreadState::os_tid). `register_counter`:
// the eBPF probes and futex tracepoints may map the calling thread to it
// (not for a signal ring: the thread's own ring keeps that mapping). `pc`:
// the kThreadBegin's.
ThreadState* StartBareThread(uint32_t ring, int32_t glibc_tid, bool register_counter, uint64_t pc);

// Writes the kThreadEnd of `ts` (in-process sync) and marks its ring ended.
void EndBareThread(ThreadState* ts, uint64_t pc);

// Ends the recording of the thread of `slot` (its ring, its signal ring):
// what FinishThread does for the calling thread at its exit. `free_stack`: a
// free of its stack first (a thread with a TLS block of its own). `pc`: the events'.
void FinishSlot(ThreadSlot slot, bool free_stack, uint64_t pc);

// A child process made without the pthread_atfork handlers (raw clone()
// without CLONE_VM): what a forked child does, it writes nothing to the rings.
void ForgetRecordingInChild();

// The process's attach point (ring_layout.h, AttachPoint; rt_state.cc): never
// null, and never kAttachRequested when the process has none.
extern AttachPoint* g_attach_point;

// Attach by injection (attach_inject.cc, only in libseer_rt.so): starts the
// thread that puts the program's calls back at the detach. Set by the
// injection, null otherwise; a forked child of an injected process that gets
// rings of its own starts one too (rt_state.cc, RecordForkedChild).
extern bool (*g_start_detach_watcher)();

// Maps the shared area named by SEER_RT_SHM_FD and attaches the calling thread.
// Idempotent; called from __tsan_init and the runtime's constructor.
void Initialize();

// The detach of an attached process: the fatal signals the runtime caught
// (to note which one killed the process) have their default action again,
// unless the program installed a handler of its own since.
void RestoreSignalHandlers();
// True for the handler the runtime installs for the fatal signals above: not
// the program's (interpose_signal.cc counts only the program's handlers).
bool IsRuntimeSignalHandler(const void* fn);

// Attach by injection (attach_inject.cc): maps the area the recorder laid out
// behind the attach page, recording synchronisation in-process from now on.
// False when there is no requested area, or it is not ours.
bool ActivateInjected(bool futex_stamps);

// Claims a ring for a thread the runtime has not seen (the main thread, or one
// not started through the interposed pthread_create). Null when not recording.
SEER_RT_NOINLINE ThreadState* AttachThread();

// AttachThread for the pthread wrappers. In attach mode a thread that was
// running when the recorder asked starts recording here, at a pthread call,
// and not at its next access: that access could be inside a critical section
// whose lock was taken before the probes were there to see it.
SEER_RT_NOINLINE ThreadState* AttachThreadAtSyncCall();

// The pthread wrappers of the ebpf modes, on each call: attaches the thread
// when the runtime records (its counter must be registered before the probed
// call), and in attach mode stops it once the recorder has detached, so that a
// thread that synchronises stops writing at its next sync call. A program not
// recording pays three loads.
SEER_RT_NOINLINE void AtSyncCallSlow();

// True when a thread not recording should start: the runtime records, or a
// recorder asked it to (attach mode). The gate of AttachThread and AtSyncCall.
SEER_RT_INLINE bool RecordingWanted() {
  return __atomic_load_n(&g_rt.active, __ATOMIC_ACQUIRE) ||
         g_attach_point->state.load(std::memory_order_acquire) == kAttachRequested;
}

SEER_RT_INLINE void AtSyncCall() {
  if (tls_state != nullptr || RecordingWanted()) AtSyncCallSlow();
}

// Starts recording the calling thread on `ring` (claimed by its creator);
// emits kThreadBegin.
ThreadState* StartThread(uint32_t ring, int32_t parent);

// Claims a ring for a thread about to be created (or attaching itself): a
// never-used one, else one the recorder gave back, else (when the recorder
// reuses rings) waits a bounded time for one. -1 when none came, counted in
// ShmHeader::no_ring_threads. `released`: the descriptor's first kRelease* bits.
int32_t ClaimRing(int32_t parent, uint32_t released);

// Sets `bits` (kRelease*) in the descriptor of ring `ring`; the call that
// completes kReleaseLetGo counts the ring in ShmHeader::coming_rings.
void ReleaseRing(uint32_t ring, uint32_t bits);

// The calling thread records nothing: its creator found no ring for it (it
// would otherwise claim one at its first event, with no fork to order it
// after its creator).
void SkipThread();

SEER_RT_INLINE ThreadState* CurrentThread() {
  ThreadState* ts = tls_state;
  if (__builtin_expect(ts == nullptr, 0)) ts = AttachThread();
  return ts;
}

// The pause word of the thread's ring (RingDesc::paused), addressed from the
// writer state that lives in the same descriptor: one load, no second pointer.
inline constexpr size_t kPausedOffset = offsetof(RingDesc, paused) - offsetof(RingDesc, producer);
static_assert(sizeof(ThreadState) <= kPausedOffset, "the writer state must not cover the pause word");

// True while the recorder has paused the recording (docs/runtime.md, "Pausing").
SEER_RT_INLINE bool Paused(const ThreadState* ts) {
  return __atomic_load_n(reinterpret_cast<const uint32_t*>(reinterpret_cast<const char*>(ts) + kPausedOffset),
                         __ATOMIC_RELAXED) != 0;
}

// A hook that found its ring paused: publishes what the thread wrote before the
// pause (records below kPublishWords wait for a publication otherwise), so
// that the recorder collects them with the on period they belong to. Null.
SEER_RT_NOINLINE ThreadState* PausedThread(ThreadState* ts);

// CurrentThread for the hooks that write events: null while the ring is
// paused. Thread starts and ends (StartThread, FinishThread, the fork in
// pthread_create) are written regardless: they are rare, and they tie rings
// to threads.
SEER_RT_INLINE ThreadState* RecordingThread() {
  ThreadState* ts = CurrentThread();
  if (__builtin_expect(ts != nullptr, 1) && __builtin_expect(Paused(ts), 0)) return PausedThread(ts);
  return ts;
}

// True when a synchronisation wrapper forwards the call without recording it.
// In ebpf mode the probes record it: the thread is attached first (attaching
// registers its record counter, before the libc call the probes see, so the
// event is placed exactly among the thread's records even when it precedes its
// first access), then the wrapper forwards at once as a tail call, so that the
// probed libc function sees the program's own call site as its return address,
// as it would without the runtime. Under `--sync=none --watch` nothing records
// synchronisation, and a lock-heavy program should pay for its samples alone,
// not for a wrapper that times each wait.
SEER_RT_INLINE bool ForwardSyncCall() {
  if (__builtin_expect(g_rt.sync_inproc, 1)) return __builtin_expect(g_rt.watch_only, 0);
  AtSyncCall();
  return true;
}

// Set while an atomic hook holds room in the thread's ring and performs the
// program's operation on the program's memory (hooks_atomic.cc): a fault
// there is no place for a handler to write into that ring (interpose_signal.cc).
extern __thread bool tls_in_atomic;

// The calling thread's AnnotateIgnoreSyncBegin not yet ended (annotations.cc).
extern __thread uint32_t tls_ignore_sync;

// The thread to record, or null when synchronisation is not recorded in-process
// (or the thread ignores its synchronisation: then a lock, unlock, signal, wait
// or barrier orders nothing, as under ThreadSanitizer).
SEER_RT_INLINE ThreadState* SyncThread() {
  if (ForwardSyncCall() || __builtin_expect(tls_ignore_sync != 0, 0)) return nullptr;
  return RecordingThread();
}

// libc's syscall(), past the runtime's own (interpose_futex.cc, which records
// the program's futex calls): for the runtime's futex calls, which are not the
// program's synchronisation.
using SyscallFn = long (*)(long, ...);
SyscallFn LibcSyscall();

// libc's nanosleep(), past the runtime's own (interpose_sleep.cc, where a sleep
// is a point at which the thread's signal handlers run, and is recorded as
// one): for the runtime's own waits, which may come half-way through an append.
int SleepUnrecorded(const struct timespec* req, struct timespec* rem);

SEER_RT_INLINE uint8_t K(EventKind kind) { return static_cast<uint8_t>(kind); }

// The thread's head: words written since its ring began.
SEER_RT_INLINE uint64_t Head(const ThreadState* ts) {
  return (reinterpret_cast<uint64_t>(ts->cursor) - ts->origin) / 8;
}

// How many words a thread writes at most between two publications of its head
// (4 KiB): far below what the drainer takes per batch, so records reach it
// about as soon as before, and one slow-path call per 512 accesses at most.
inline constexpr uint64_t kPublishWords = 512;

// Makes every record below `head` visible to the drainer.
SEER_RT_INLINE void Publish(ThreadState* ts, uint64_t head) {
  ts->published = head;
  ts->desc->head.store(head, std::memory_order_release);
}

// Moves the cursor to word `head` (wrapping at the ring's end) and sets `end`:
// the ring's end, the room the drainer left (`limit`), or the next publication
// point, whichever comes first, and never before the cursor. The cursor is
// stored before the origin: a process killed in between leaves a count that
// is too small, never one past what was written.
SEER_RT_INLINE void SetHead(ThreadState* ts, uint64_t head) {
  const uint64_t lap = head & ~ts->mask;
  uint64_t stop = lap + ts->mask + 1;
  if (ts->limit < stop) stop = ts->limit;
  if (ts->published + kPublishWords < stop) stop = ts->published + kPublishWords;
  if (stop < head) stop = head;
  __atomic_store_n(&ts->cursor, ts->data + (head - lap), __ATOMIC_RELEASE);
  ts->origin = reinterpret_cast<uint64_t>(ts->data) - lap * 8;
  ts->end = ts->data + (stop - lap);
}

// Sets up the writer of ring `ring` in its descriptor, from the head the
// descriptor holds (its tail must be there too).
SEER_RT_INLINE ThreadState* OpenRing(ShmHeader* h, uint32_t ring) {
  RingDesc* d = &RingDescs(h)[ring];
  ThreadState* ts = new (d->producer) ThreadState();
  ts->data = RingData(h, ring);
  ts->mask = h->ring_words - 1;
  ts->desc = d;
  ts->ring = ring;
  ts->published = d->head.load(std::memory_order_relaxed);
  ts->limit = d->tail.load(std::memory_order_acquire) + h->ring_words;
  ts->seg_start = ~0ull;
  SetHead(ts, ts->published);
  return ts;
}

// Makes room for `words` more words, waiting a bounded time for the drainer
// (ring_overflow.cc). False: the record is dropped and counted in the ring's
// lost counters.
SEER_RT_NOINLINE bool MakeRoom(ThreadState* ts, uint64_t words, uint8_t kind);

// Counts a record of `kind` the thread drops in its ring's lost counters,
// which every report shows.
void CountLost(ThreadState* ts, uint8_t kind);

// What the overflow path asks of the thread and attach-mode state (rt_state.cc).
uint64_t NowNs();  // CLOCK_MONOTONIC
// Attach mode: true once the recorder detached, or (`check_pid`) died without
// saying so; a dead one is marked detached so that other threads see it at once.
bool RecorderGone(bool check_pid);
// The recorder is done with us: this thread writes no more, and no thread
// starts again (one recording per process lifetime: docs/runtime.md).
void StopRecording();

// Where every writer goes when its record does not fit below `end`: publishes
// the head, makes room for `words` (MakeRoom) and moves the cursor on (to the
// ring's start after its end) with a new `end`. False: the record is dropped
// and counted.
SEER_RT_NOINLINE bool Refill(ThreadState* ts, uint64_t words, uint8_t kind);

// True when `words` more words fit; waits for the drainer a bounded time if
// not. Ordered records reserve before taking their number, so a dropped record
// never leaves a hole in its order domain.
SEER_RT_INLINE bool Reserve(ThreadState* ts, uint64_t words, uint8_t kind) {
  return __builtin_expect(ts->cursor + words <= ts->end, 1) || Refill(ts, words, kind);
}

// How far ahead of the head the writer asks for ring lines (PrefetchRing): four
// cache lines, a few accesses' worth of records.
inline constexpr uint64_t kPrefetchBytes = 256;

// Asks for the ring line kPrefetchBytes past `slot` (the word a record is about
// to be written to) in exclusive state. The rings do not fit in L2 and the
// drainer reads every line on another core, so a store to a fresh line misses;
// the next locked instruction (the lock the program takes, the order number of
// its event) waits until every pending store reached L1. Fetched ahead, those
// stores find their lines. The address is not wrapped: near the ring's end it
// points past it, where a prefetch does nothing harmful (it never faults), and
// the ring's first lines go unfetched once per lap. One instruction; PREFETCHW
// is a NOP on CPUs without it, and the asm avoids needing -mprfchw.
SEER_RT_INLINE void PrefetchRing(const uint64_t* slot) {
  asm volatile("prefetchw %c1(%0)" : : "r"(slot), "i"(kPrefetchBytes));
}

// Ends a record written at the cursor: the cursor moves past it with a release
// store, after the record's own stores (WrittenWords).
SEER_RT_INLINE void Advance(ThreadState* ts, uint64_t* next) { __atomic_store_n(&ts->cursor, next, __ATOMIC_RELEASE); }

// WriteLong for a record that would cross `end` (the ring's end, typically):
// word by word, wrapping. Out of line, so that the fast path keeps its words in
// registers; in the header, so that tests drive it without the runtime.
// EndSegment's back-off where segments keep differing.
inline constexpr uint16_t kMarkMisses = 4;
inline constexpr uint16_t kMarkStride = 16;

// True when a[0, n) equals b[0, n). Not memcmp: the runtime's memcmp is an
// interposer that records the range it reads (interpose_mem.cc).
// Two words at a time (SSE2, in every x86-64), four pairs per step: a third
// of the instructions of a word-by-word loop. No early exit: where segments
// differ, they are short or differ late as often as early.
SEER_RT_INLINE bool SameWords(const uint64_t* a, const uint64_t* b, uint64_t n) {
  typedef uint64_t Pair __attribute__((vector_size(16), aligned(8), may_alias));
  const Pair* pa = reinterpret_cast<const Pair*>(a);
  const Pair* pb = reinterpret_cast<const Pair*>(b);
  Pair d0 = {0, 0}, d1 = {0, 0};
  uint64_t i = 0;
  for (; i + 8 <= n; i += 8, pa += 4, pb += 4) {
    d0 |= (pa[0] ^ pb[0]) | (pa[1] ^ pb[1]);
    d1 |= (pa[2] ^ pb[2]) | (pa[3] ^ pb[3]);
  }
  d0 |= d1;
  uint64_t diff = d0[0] | d0[1];
  for (; i < n; ++i) diff |= a[i] ^ b[i];
  return diff == 0;
}

// Repeat marks, before an ordered record of `words` words is written (room
// for it reserved): ends the thread's open segment. One that repeats the
// reference segment word for word, from the same last pc, is taken back and
// replaced by a kSegmentRepeatKind record; one that does not becomes the
// reference, marked by a kSegmentRefKind record after it. Only segments of
// kMinMarkedWords to kMaxMarkedWords words that nothing has published yet
// (the drainer has not seen them) and that lie in one lap of the ring count;
// others leave the reference as it was. In the header, for the tests.
inline SEER_RT_NOINLINE void EndSegment(ThreadState* ts, uint64_t words) {
  const uint64_t head = Head(ts);
  const uint64_t start = ts->seg_start;
  if (start > head || head - start < kMinMarkedWords || head - start > kMaxMarkedWords) return;
  if (ts->published > start || (start & ~ts->mask) != (head & ~ts->mask)) return;
  const uint64_t len = head - start;
  uint64_t* seg = ts->data + (start & ts->mask);
  // The reference is still in the ring (not written over by a later lap) and
  // decodes as this segment would.
  if (ts->ref_len == len && ts->ref_pc == ts->seg_pc && head <= ts->ref_start + ts->mask + 1 &&
      SameWords(seg, ts->data + (ts->ref_start & ts->mask), len)) {
    seg[0] = ShortHead(kSegmentRepeatKind, 0, len);
    seg[1] = 0;
    Advance(ts, seg + kShortWords);
    ts->ref_misses = 0;
    return;
  }
  // A thread whose segments keep differing names a new reference only one
  // segment in kMarkStride (after kMarkMisses misses): a mark costs two words
  // in the ring and a copy in the recorder, for nothing where nothing repeats.
  if (++ts->ref_misses > kMarkMisses) {
    if (ts->ref_misses < kMarkMisses + kMarkStride) return;
    ts->ref_misses = kMarkMisses;
  }
  uint64_t* c = ts->cursor;
  if (c + kShortWords + words > ts->end) return;  // no room for the mark without a refill: no new reference
  c[0] = ShortHead(kSegmentRefKind, 0, len);
  c[1] = 0;
  Advance(ts, c + kShortWords);
  ts->ref_start = start;
  ts->ref_len = static_cast<uint16_t>(len);
  ts->ref_pc = ts->seg_pc;
}

// After an ordered record (published up to `head`): the next segment begins
// there. With repeat marks the next publication point moves to kPublishWords
// past it, so that a shorter segment is never published in parts (and so
// stays markable).
SEER_RT_INLINE void BeginSegment(ThreadState* ts, uint64_t head) {
  ts->seg_start = head;
  ts->seg_pc = ts->last_pc;
  if (ts->repeat_marks) SetHead(ts, head);
}

// (WriteLong ended the segment before it came here.)
inline SEER_RT_NOINLINE void WriteLongWrapping(ThreadState* ts, uint8_t kind, uint8_t mode, uint64_t object,
                                               uint64_t aux, uint64_t pc, uint64_t order, uint64_t after) {
  const uint64_t h = Head(ts);
  uint64_t n = kMinLongWords;
  ts->data[h & ts->mask] = LongHead(kind, mode, object, aux, after);
  ts->data[(h + 1) & ts->mask] = pc;
  ts->data[(h + 2) & ts->mask] = order;
  if (aux != 0) ts->data[(h + n++) & ts->mask] = aux;
  if (after != 0) ts->data[(h + n++) & ts->mask] = after;
  // Published first: SetHead's next publication point counts from it.
  Publish(ts, h + n);
  SetHead(ts, h + n);
  if (order != kNoSeq) BeginSegment(ts, h + n);
}

// Writes a long record into space already reserved (LongWords(aux, after)) and
// publishes it. Callers pass constants for what they never have, so a lock
// event compiles to three stores.
SEER_RT_INLINE void WriteLong(ThreadState* ts, uint8_t kind, uint8_t mode, uint64_t object, uint64_t aux, uint64_t pc,
                              uint64_t order, uint64_t after = 0) {
  const uint64_t n = static_cast<uint64_t>(LongWords(aux, after));
  if (order != kNoSeq && ts->repeat_marks) EndSegment(ts, n);
  uint64_t* c = ts->cursor;
  if (__builtin_expect(c + n > ts->end, 0)) {
    WriteLongWrapping(ts, kind, mode, object, aux, pc, order, after);
    return;
  }
  const uint64_t h = Head(ts);
  PrefetchRing(c);
  c[0] = LongHead(kind, mode, object, aux, after);
  c[1] = pc;
  c[2] = order;
  uint64_t* next = c + kMinLongWords;
  if (aux != 0) *next++ = aux;
  if (after != 0) *next++ = after;
  Advance(ts, next);
  Publish(ts, h + n);
  if (order != kNoSeq) BeginSegment(ts, h + n);
}

// Writes a short record if it fits below `end`; false otherwise (the records
// of the fast paths never straddle the ring's end: PutShort wraps them).
SEER_RT_INLINE bool TryShort(ThreadState* ts, uint8_t kind, uint64_t size, uint64_t object, uint64_t pc) {
  uint64_t* c = ts->cursor;
  if (__builtin_expect(c + kShortWords > ts->end, 0)) return false;
  // Read every field before the first store: the stores could alias them.
  const uint64_t w0 = ShortHead(kind, size, object);
  UpdateLastPc(kind, object, pc, &ts->last_pc);
  PrefetchRing(c);
  c[1] = pc;
  c[0] = w0;
  Advance(ts, c + kShortWords);
  return true;
}

// Writes a compact record (`tag`: CompactTag of the access) if it fits below
// `end` and `pc` is near the thread's last access; false otherwise.
SEER_RT_INLINE bool TryCompact(ThreadState* ts, uint64_t tag, uint64_t object, uint64_t pc) {
  uint64_t* c = ts->cursor;
  const uint64_t offset = CompactOffset(pc, ts->last_pc);
  if (__builtin_expect(c >= ts->end, 0) || __builtin_expect(!CompactFits(offset), 0)) return false;
  PrefetchRing(c);
  *c = CompactHead(tag, offset, object);
  ts->last_pc = pc;
  Advance(ts, c + kCompactWords);
  return true;
}

// A short record at any position, the ring's last word included (it then
// straddles the end), into space already reserved.
SEER_RT_INLINE void WriteShortAnywhere(ThreadState* ts, uint8_t kind, uint64_t size, uint64_t object, uint64_t pc) {
  const uint64_t h = Head(ts);
  ts->data[h & ts->mask] = ShortHead(kind, size, object);
  ts->data[(h + 1) & ts->mask] = pc;
  UpdateLastPc(kind, object, pc, &ts->last_pc);
  SetHead(ts, h + kShortWords);
}

// PutShort past TryShort: room, and the one record that straddles the ring's end.
SEER_RT_NOINLINE void PutShortWrapping(ThreadState* ts, uint8_t kind, uint64_t size, uint64_t object, uint64_t pc);

SEER_RT_INLINE void PutShort(ThreadState* ts, uint8_t kind, uint64_t size, uint64_t object, uint64_t pc) {
  if (!TryShort(ts, kind, size, object, pc)) PutShortWrapping(ts, kind, size, object, pc);
}

// The slow path of PutShortFast: attaches the thread, waits for room, or finds the ring paused.
SEER_RT_NOINLINE void PutShortSlow(uint8_t kind, uint64_t size, uint64_t object, uint64_t pc);

// The function entry/exit hook body: the thread's state, a room check and three
// stores (the record and the cursor, none to a line the drainer reads);
// everything else (first event of a thread, full ring, a publication) is a
// tail call, so the fast path saves no registers.
SEER_RT_INLINE void PutShortFast(uint8_t kind, uint64_t size, uint64_t object, uint64_t pc) {
  ThreadState* ts = tls_state;
  if (__builtin_expect(ts != nullptr, 1) && __builtin_expect(!Paused(ts), 1) && TryShort(ts, kind, size, object, pc))
    return;
  PutShortSlow(kind, size, object, pc);
}

// The slow path of PutAccessFast: attaches the thread, publishes, waits for
// room, or writes a short record when the pc is too far from the last access's.
SEER_RT_NOINLINE void PutAccessSlow(uint8_t kind, uint64_t size, uint64_t object, uint64_t pc);

// Plain accesses the program's annotations take out of the recording
// (annotations.cc): benign races and a thread's ignored reads or writes. Not 0
// while any applies: then every plain access takes the slow path, which asks
// FilteredAccess. Atomics, allocations and synchronisation are never filtered.
// Hidden, so that the fast path reads it in one compare, not through the GOT.
extern std::atomic<uint32_t> g_access_filters __attribute__((visibility("hidden")));
SEER_RT_INLINE bool AccessFiltersOn() { return g_access_filters.load(std::memory_order_relaxed) != 0; }
SEER_RT_INLINE bool PausedOrFiltered(const ThreadState* ts) {
  const uint32_t paused = __atomic_load_n(
      reinterpret_cast<const uint32_t*>(reinterpret_cast<const char*>(ts) + kPausedOffset), __ATOMIC_RELAXED);
  return (paused | g_access_filters.load(std::memory_order_relaxed)) != 0;
}
// True when the plain access (`kind`: kRead or kWrite) is not to be recorded.
SEER_RT_NOINLINE bool FilteredAccess(uint8_t kind, uint64_t addr, uint64_t size);

// The per-access hook body (a read or write of 1, 2, 4, 8 or 16 bytes): like
// PutShortFast with one word instead of two, and a range check of the pc.
// The pause word and the filters are tested together (one `or` of the two
// words, one branch): both send the access to the slow path.
SEER_RT_INLINE void PutAccessFast(uint8_t kind, uint64_t size, uint64_t object, uint64_t pc) {
  ThreadState* ts = tls_state;
  if (__builtin_expect(ts != nullptr, 1) && __builtin_expect(!PausedOrFiltered(ts), 1) &&
      TryCompact(ts, CompactTag(kind, size), object, pc))
    return;
  PutAccessSlow(kind, size, object, pc);
}

// A memory range of any size: short record when it fits, long without a sequence number otherwise.
SEER_RT_INLINE void PutRange(ThreadState* ts, EventKind kind, uint64_t addr, uint64_t size, uint64_t pc) {
  if (size == 0) return;
  if (__builtin_expect(AccessFiltersOn(), 0) && FilteredAccess(K(kind), addr, size)) return;
  if (size <= kMaxShortSize)
    PutShort(ts, K(kind), size, addr, pc);
  else if (Reserve(ts, LongWords(size, 0), K(kind)))
    WriteLong(ts, K(kind), 0, addr, size, pc, kNoSeq);
}

// The counters of the global and lock domains (ring_record.h). They live in the
// target only: the merger learns the numbers from the records. Atomics keep
// theirs next to their stripe spinlocks (hooks_atomic.cc).
struct alignas(64) OrderCounter {
  std::atomic<uint64_t> next{0};
};
extern OrderCounter g_order[kFirstAtomicDomain];

// Takes the next number of `domain` (global or lock). No fence beyond the
// locked add: a lock's numbers are taken while it is held (after acquiring,
// before releasing), and every global event's number is taken before the
// operation that publishes it or after the one that observed it.
SEER_RT_INLINE uint64_t TakeNumber(uint32_t domain) {
  return OrderWord(domain, g_order[domain].next.fetch_add(1, std::memory_order_relaxed));
}

// The next number of the atomic stripe of `addr`, taken under the stripe's
// lock (hooks_atomic.cc): for an atomic access the runtime does not perform
// itself but must order with the hooks' own accesses to that address. kNoSeq
// in a signal handler whose thread holds that stripe: the record is lost.
uint64_t TakeAtomicNumber(const volatile void* addr);

// In a forked child that records (rt_state.cc, RecordForkedChild): every
// atomic stripe unlocked and its order domain back at 0.
void ResetAtomicOrderInChild();

// The signal handlers that ran on the thread of `ts` (recorded on its signal
// ring) since its last wait for them happen before what it records next: a
// wait on the "handled" object each signals as it ends (interpose_signal.cc).
// A handler ended before the thread went on, so any later point of the
// thread will do; the first ordered record after it is the one that costs no
// more than a test of `handlers_ran`.
SEER_RT_NOINLINE void WaitForHandlers(ThreadState* ts, uint64_t pc);

// One ordered event: room first (a thread that took a number must not wait for
// the drainer, and a dropped record must not leave a hole in a domain), then
// its number, then the record.
SEER_RT_INLINE void PutOrdered(ThreadState* ts, EventKind kind, uint8_t mode, uint64_t object, uint64_t aux,
                               uint64_t pc, uint32_t domain = kGlobalDomain) {
  if (__builtin_expect(ts->handlers_ran, 0)) WaitForHandlers(ts, pc);
  if (!Reserve(ts, LongWords(aux, 0), K(kind))) return;
  WriteLong(ts, K(kind), mode, object, aux, pc, TakeNumber(domain));
}

// A lock's acquire or release, ordered in the lock's own domain.
SEER_RT_INLINE void PutLockEvent(ThreadState* ts, EventKind kind, uint8_t mode, uint64_t lock, uint64_t aux,
                                 uint64_t pc) {
  PutOrdered(ts, kind, mode, lock, aux, pc, LockDomain(lock));
}

// Shorthand for the caller's return address: the pc recorded for every event.
#define SEER_RT_CALLER_PC() reinterpret_cast<uint64_t>(__builtin_return_address(0))

}  // namespace seer::rt
