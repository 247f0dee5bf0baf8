// The event model: the one contract shared by the recorder, the runtime, the trace
// store and every analysis. docs/trace-format.md documents each kind and its fields.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace seer {

// Kinds are stored on disk by value: append new kinds at the end, never renumber.
enum class EventKind : uint8_t {
  kRead = 0,            // object = address, aux = byte count
  kWrite = 1,           // object = address, aux = byte count
  kAtomicLoad = 2,      // object = address, aux = byte count, mode = MemoryOrder
  kAtomicStore = 3,     // object = address, aux = byte count, mode = MemoryOrder
  kAtomicRmw = 4,       // object = address, aux = byte count, mode = MemoryOrder
  kAcquire = 5,         // object = lock, mode = LockMode, aux = AcquireHow
  kRelease = 6,         // object = lock, mode = LockMode
  kCondWaitBegin = 7,   // object = condition variable, aux = mutex; releases the mutex
  kCondWaitEnd = 8,     // object = condition variable, aux = mutex; wait-return + re-acquire
  kSignal = 9,          // object = sync object (futex word, semaphore, cond): release edge
  kWait = 10,           // object = sync object: the wait returned; acquire edge, no exclusion
  kBarrierArrive = 11,  // object = barrier: all arrivals happen before all departures
  kBarrierDepart = 12,  // object = barrier
  kFork = 13,           // object = child thread id
  kJoin = 14,           // object = joined thread id
  kThreadBegin = 15,    // first event of a thread
  kThreadEnd = 16,      // last event of a thread
  kAlloc = 17,          // object = address, aux = byte count, mode = AllocRegion: a fresh variable identity
  kFree = 18,           // object = address, aux = byte count (0 when unknown)
  kFuncEntry = 19,      // object = entered function's address, pc = call site
  kFuncExit = 20,       // pc = return site
  kBranch = 21,         // pc = branch site (SeqCheck)
  kAtomicBegin = 22,    // start of a marked atomic block (STD `begin`)
  kAtomicEnd = 23,      // end of a marked atomic block (STD `end`)
  kFence = 24,          // atomic_thread_fence: mode = MemoryOrder
  kLockWait = 25,       // object = lock, aux = nanoseconds a blocking acquire waited; comes
                        // right before that acquire, only when the lock was busy
  kWatchSample = 26,    // a sampled access a hardware watchpoint then covered (seer record --watch):
                        // object = address, aux = byte count, mode = WatchAccess, pc = the access
  kWatchHit = 27,       // another thread touched those bytes while the sampled thread was held:
                        // object = that thread, aux = hits, mode = WatchHit, pc = its instruction;
                        // follows its kWatchSample in the sampled thread (a race caught in the act)
  kLockRequest = 28,    // object = lock, mode = LockMode: a blocking acquire found the lock busy and
                        // waits for it; its kLockWait and kAcquire follow once it has it. One with
                        // neither after it was still waiting when the run ended
};
inline constexpr int kNumEventKinds = 29;

// Lock modes of kAcquire / kRelease. Shared (read-mode) sections of one rwlock do
// not exclude each other.
enum class LockMode : uint8_t { kExclusive = 0, kShared = 1 };

// How a kAcquire got its lock, kept in the event's aux (0, blocking, in traces
// written before it existed, so they read as they always did). A trylock that
// finds the lock taken fails, and a timed or clock lock gives up at its
// timeout: neither waits forever, so neither is ever the blocked request of a
// deadlock, though the lock it got may be held in one. Only successful calls
// are events.
enum class AcquireHow : uint8_t { kBlocking = 0, kTry = 1, kTimed = 2 };

// What a kAlloc's range is, for reports ("Location is stack of thread T1").
// The runtime emits a thread's stack and its static TLS blocks when the thread
// starts (docs/runtime.md); for kTls, pc is the address of the module's TLS
// initialisation image (PT_TLS p_vaddr at run time), which names the module
// whose TLS symbols describe the block. kFileDescriptor is the byte the runtime
// gives a file descriptor (kFdShadowBase + N for descriptor N: every I/O call on
// it and dup2 read it, close writes it), allocated when a call creates the
// descriptor and written by that creation, as ThreadSanitizer's open writes it
// (a use racing with the creation is a race); kFileDescriptorDup is the target
// of dup2/dup3, read, not written, by that creation (ThreadSanitizer's choice:
// programs dup /dev/null or a closed pipe over a descriptor other threads use);
// kFileDescriptorReset is the fresh identity close() gives the byte, which
// nothing writes: a number a creation the runtime did not see reuses starts
// afresh (docs/runtime.md, "File descriptors").
// kHeap blocks (malloc, new, mmap) are written by their allocation
// (EventLowering); kDeclaredNew is memory the program only declares new
// (AnnotateNewMemory: a custom allocator's recycled object), which nothing writes.
enum class AllocRegion : uint8_t {
  kHeap = 0,
  kStack = 1,
  kTls = 2,
  kFileDescriptor = 3,
  kDeclaredNew = 4,
  kFileDescriptorReset = 5,
  kFileDescriptorDup = 6,
};
// Above every user-space address (47 bits): descriptor N's byte.
inline constexpr uint64_t kFdShadowBase = 0xfd0000000000;
inline constexpr uint64_t kFdShadowLimit = kFdShadowBase + (uint64_t{1} << 16);

// The sampled access of a kWatchSample.
enum class WatchAccess : uint8_t { kRead = 0, kWrite = 1 };

// What a kWatchHit saw. The hooks of a seer-cc build check every access against
// the armed watches (software watchpoints): they know a read from a write. A
// hardware write watchpoint (armed for a sampled read) fires on writes only; a
// read-write one (armed for a sampled write) cannot tell a read from a write,
// so the value decides: changed while the thread was held means a write.
// kUnseenWrite: nothing fired but the value changed (code without hooks where
// the hardware watchpoints are not delivered, or the kernel): the other
// thread is unknown (object ~0).
enum class WatchHit : uint8_t { kWrite = 0, kReadOrWrite = 1, kUnseenWrite = 2, kRead = 3 };

// C11 memory orders, as the __tsan_atomic* hooks pass them (masked with 0x7fff).
enum class MemoryOrder : uint8_t { kRelaxed = 0, kConsume = 1, kAcquire = 2, kRelease = 3, kAcqRel = 4, kSeqCst = 5 };

// Namespaces of object ids, for names kept in the trace (STD import keeps the
// names of threads, locks and variables so that export restores them).
enum class Namespace : uint8_t { kThread = 0, kLock = 1, kVariable = 2 };

struct Event {
  uint64_t index = 0;   // position in the trace's total order, from 0
  uint64_t object = 0;  // address, lock, sync object or thread id: see EventKind
  uint64_t aux = 0;     // byte count or mutex: see EventKind
  uint64_t pc = 0;      // program counter, or location id in traces without addresses
  uint32_t tid = 0;     // dense seer thread id (see the trace's thread table)
  EventKind kind = EventKind::kRead;
  uint8_t mode = 0;  // LockMode, MemoryOrder or AllocRegion, by kind
};

// Stable lower-case names ("read", "atomic_rmw", ...), used in JSON and docs.
std::string_view EventKindName(EventKind kind);
std::optional<EventKind> EventKindFromName(std::string_view name);

inline bool IsAccess(EventKind k) { return k == EventKind::kRead || k == EventKind::kWrite; }
inline bool IsAtomicAccess(EventKind k) {
  return k == EventKind::kAtomicLoad || k == EventKind::kAtomicStore || k == EventKind::kAtomicRmw;
}
inline bool IsMemoryEvent(EventKind k) {
  return IsAccess(k) || IsAtomicAccess(k) || k == EventKind::kAlloc || k == EventKind::kFree;
}
inline bool IsLockEvent(EventKind k) {
  return k == EventKind::kAcquire || k == EventKind::kRelease || k == EventKind::kCondWaitBegin ||
         k == EventKind::kCondWaitEnd;
}
// An acquire that could not have waited forever (AcquireHow other than kBlocking).
inline bool IsNonBlockingAcquire(const Event& e) {
  return e.kind == EventKind::kAcquire && e.aux != static_cast<uint64_t>(AcquireHow::kBlocking);
}
inline bool IsThreadEvent(EventKind k) { return k == EventKind::kFork || k == EventKind::kJoin; }

}  // namespace seer
