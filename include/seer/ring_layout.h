// The shared-memory area between the in-process runtime (libseer_rt, the writer)
// and the recorder's collector (recorder/merge/, the reader): one header, one
// descriptor per thread ring, then the rings. The recorder creates it as a memfd
// and passes the descriptor number in SEER_RT_SHM_FD; docs/runtime.md explains it.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>

namespace seer::rt {

inline constexpr uint64_t kShmMagic = 0x3174722d72656573ull;  // "seer-rt1"
inline constexpr uint32_t kShmVersion = 11;  // 3: long records of 3-5 words; 4: the writer state in the descriptor;
                                             // 5: the pause word; 6: options; 7: ring reuse; 8: the access sampler;
                                             // 9: its walks; 10: watches of an attached process;
                                             // 11: forked children not recorded
inline constexpr const char* kShmFdEnv = "SEER_RT_SHM_FD";
// Set in the target's environment when the runtime should interpose pthread and
// emit synchronisation events itself (`seer record --sync=inproc`: "inproc";
// "inproc+futex" when the recorder also takes raw futex syscalls from the eBPF
// tracepoints and each thread registers its record counter for their stamps).
inline constexpr const char* kSyncEnv = "SEER_RT_SYNC";
inline constexpr const char* kSyncInprocFutex = "inproc+futex";
// The registration: FUTEX_WAKE on the thread's ThreadState (its cursor and
// origin) for 0 waiters, with this in val3 (bpf/sync_event.h SEER_FUTEX_REGISTER_MAGIC).
inline constexpr uint32_t kFutexRegisterMagic = 0x5ee25ee2u;
// The processes of a launched recording (docs/recording.md, "Processes"). A
// process of the recorded program's family that the area it inherited is not
// for, a forked child (its copy of the parent's mapping) or a program one of
// them exec'd (the area is claimed), asks the recorder for an area of its
// own: it connects to the unix socket (SOCK_SEQPACKET) named in this variable
// and sends a ChildRequest. The recorder answers with one byte, 1, and the new
// area's memfd (SCM_RIGHTS), or closes the connection when it cannot record
// one more process. It learns the pid from the socket (SO_PEERCRED), not from
// the request.
inline constexpr const char* kChildrenEnv = "SEER_RT_CHILDREN";
inline constexpr uint64_t kChildMagic = 0x3163702d72656573ull;  // "seer-pc1"
inline constexpr uint32_t kChildForked = 1;                     // ChildRequest::how
inline constexpr uint32_t kChildExeced = 2;
struct ChildRequest {
  uint64_t magic;    // kChildMagic
  uint32_t version;  // kShmVersion: a runtime of another seer gets no area
  uint32_t how;      // kChildForked or kChildExeced
  int64_t parent;    // the forking process, or the exec'd process's parent
};

// The symbol whose presence in an ELF file says "this binary carries the runtime".
inline constexpr const char* kRuntimeMarkerSymbol = "__seer_rt_present";

inline constexpr int kLostKinds = 32;  // >= kNumEventKinds, padded

// The process-wide part. Written by the recorder before exec, except the
// fields marked "runtime".
struct alignas(64) ShmHeader {
  uint64_t magic;
  uint32_t version;
  uint32_t max_rings;
  uint64_t ring_words;   // capacity of each ring in 8-byte words, a power of two
  uint64_t wait_ns;      // how long a producer waits for room before dropping
  uint64_t ring_offset;  // byte offset of ring 0's data from the header
  // runtime: the pid that claimed the area; 0 until then. Children exec'd by
  // the target find it taken and stay silent.
  std::atomic<int64_t> owner_pid;
  std::atomic<uint32_t> next_ring;        // runtime: rings never used before handed out so far (may pass max_rings)
  std::atomic<uint32_t> exited;           // runtime: 1 after exit() ran the runtime's destructor
  std::atomic<uint32_t> fatal_signal;     // runtime: signal number of a fatal signal, 0 if none
  std::atomic<uint64_t> no_ring_threads;  // runtime: threads that found no free ring
  // runtime: rings claimed so far, a ring claimed again after its return
  // counted each time: the threads that got a ring.
  std::atomic<uint64_t> claims;
  // Ring reuse (docs/runtime.md, "Ring reuse"). recorder: rings it gave back
  // (kRingReturned) and the runtime has not claimed again; runtime: takes one
  // before scanning for its ring, so that a claim with none back costs one load.
  std::atomic<uint32_t> returned_rings;
  // runtime: rings that will come back once their thread has ended and been
  // merged (kReleaseLetGo set: created, and joined or detached), counted by
  // whoever set the second bit; the recorder takes one off for each ring it
  // gives back. A thread that finds no ring waits for one only while this says
  // that one is coming.
  std::atomic<uint32_t> coming_rings;
  // runtime: threads waiting for a ring to come back (kOptionReuseRings only):
  // the recorder merges and looks for ended threads even if nothing new was written.
  std::atomic<uint32_t> ring_waiters;
  // recorder: 1 once it has read the target's module map. The runtime waits for
  // it (bounded) at start-up, so that even a program that exits at once has one.
  std::atomic<uint32_t> modules_read;
  uint32_t options;  // kOption* bits, read by the runtime when it maps the area
  // recorder: --watch (runtime/watchpoints.h): accesses between a thread's
  // first samples (0: no watchpoints), how long a sampled thread is held, and
  // the share of a thread's time it may be held, in thousandths (the budget
  // that adapts the period).
  uint32_t watch_period;
  uint32_t watch_delay_us;
  uint32_t watch_budget_permille;
  // runtime: 1 when the hardware watchpoints fire on this machine (else only
  // the hooks' software ones and the value comparison); the watches armed at
  // once; why there is no hardware: an errno of perf_event_open or sigaction,
  // or kWatchNeverFired, kWatchAttached (below).
  std::atomic<uint32_t> watch_hardware;
  std::atomic<uint32_t> watch_slots;
  std::atomic<int32_t> watch_errno;
  // runtime: samples taken, races caught (a kWatchHit written), samples
  // skipped because every watchpoint was armed by another thread.
  std::atomic<uint64_t> watch_samples;
  std::atomic<uint64_t> watch_caught;
  std::atomic<uint64_t> watch_busy;
  // runtime, a program without hooks (the preloaded runtime: runtime/access_sampler.h):
  // the CPU-time sampler's period in microseconds (0: it does not run), why
  // not (an errno of timer_create), its ticks, the ticks that found no plain
  // access of the program's own code to sample (directly or by their walk),
  // the walks to an access begun, the samples they found, and their single
  // steps.
  std::atomic<uint32_t> sampler_period_us;
  std::atomic<int32_t> sampler_errno;
  std::atomic<uint64_t> sampler_ticks;
  std::atomic<uint64_t> sampler_misses;
  std::atomic<uint64_t> sampler_walks;
  std::atomic<uint64_t> sampler_walk_samples;
  std::atomic<uint64_t> sampler_steps;
  // runtime: threads the sampler could give no timer (its table of timers
  // full, or timer_create refused); and, attached (seer record -p), how the
  // detach left the process (kWatchDetach*).
  std::atomic<uint32_t> sampler_untimed;
  std::atomic<uint32_t> watch_detach;
  // runtime: children forked by the process while it recorded that record
  // nothing (an attached process's, or no recorder answered their request),
  // counted by each child in its copy of the mapping, which is this one.
  std::atomic<uint32_t> forks_unrecorded;
};

// ShmHeader::watch_errno besides an errno: the debug registers were accepted
// but never fired (the runtime's self-test); attached to a running process,
// where a process-wide slot would reach only the threads made after it;
// turned off by SEER_WATCH_HARDWARE=0 in the program's environment.
inline constexpr int32_t kWatchNeverFired = -1;
inline constexpr int32_t kWatchAttached = -2;
inline constexpr int32_t kWatchTurnedOff = -3;

// ShmHeader::watch_detach, once an attached process was let go: every timer
// deleted, every hardware watchpoint closed, and SIGTRAP's disposition the
// program's again; or the same but the runtime's SIGTRAP handler left
// installed, because a thread's walk (runtime/access_sampler.h) had not ended
// (its next single step would otherwise kill the program).
inline constexpr uint32_t kWatchDetachClean = 1;
inline constexpr uint32_t kWatchDetachHandlerKept = 2;

// ShmHeader::options: each release of a lock the runtime recorded carries in
// its aux the nanoseconds the lock was held (two clock reads per lock pair;
// the service's seer_lock_hold_seconds). Off for `seer record`.
inline constexpr uint32_t kOptionHoldTimes = 1u << 0;
// ShmHeader::options: the recorder gives the rings of ended threads back
// (kRingReturned) once it merged all they wrote, and a thread that finds no
// ring waits for one (wait_ns at most). Only the in-process recordings set it:
// the eBPF recording's joiner names threads by ring for the whole run.
inline constexpr uint32_t kOptionReuseRings = 1u << 1;
// ShmHeader::options: the runtime marks repeated segments in its rings
// (kSegmentRefKind, kSegmentRepeatKind in ring_record.h) instead of writing
// them again. Only in-process recordings that place no futex stamps set it
// (a stamp counts the words written, which a rewound segment takes back).
inline constexpr uint32_t kOptionRepeatMarks = 1u << 2;
// ShmHeader::options: seer record --sync=none --watch. Every ring is paused
// from the start and stays so: the hooks skip the paused ring and go straight
// to the watches (runtime/watchpoints.h), paying what an unrecorded run pays.
inline constexpr uint32_t kOptionWatchOnly = 1u << 3;

// kRingFree: never used (rings at and past next_ring). kRingReturned: its
// thread ended, the recorder merged all it wrote and gave it back; the runtime
// claims it again (kRingClaimed) for a new thread once no never-used one is left.
enum RingState : uint32_t {
  kRingFree = 0,
  kRingClaimed = 1,
  kRingRunning = 2,
  kRingEnded = 3,
  kRingReturned = 4,
};

// RingDesc::released bits (runtime): all must be set before the recorder may
// give a ring back. kReleaseCreated: the creating thread wrote all it writes to
// the descriptor (set at the claim of a thread that attached itself).
// kReleaseJoined: pthread_join returned for the thread and its join event is
// written, or the thread is detached: its pthread_t may name another thread
// from now on. A joinable thread never joined keeps its ring, as glibc keeps
// its stack. kReleaseEnded: the thread ended (set after kRingEnded, so after
// its last publication).
inline constexpr uint32_t kReleaseCreated = 1u << 0;
inline constexpr uint32_t kReleaseJoined = 1u << 1;
inline constexpr uint32_t kReleaseEnded = 1u << 2;
inline constexpr uint32_t kReleaseLetGo = kReleaseCreated | kReleaseJoined;  // only the thread holds it
inline constexpr uint32_t kReleaseAll = kReleaseLetGo | kReleaseEnded;

// Word positions in RingDesc::producer: the thread's write cursor (an address
// in the target) and its origin; (cursor - origin) / 8 is the number of words
// it wrote, published or not.
inline constexpr int kProducerCursor = 0;
inline constexpr int kProducerOrigin = 1;

// One per thread at a time (a ring is reused once its thread ended: see
// kRingReturned). The producer owns `head`, `lost` and `producer`; the drainer
// owns `tail`. `head` and `lost` run on across the ring's threads: the next
// thread writes on from the last one's head, and the loss counters are the
// ring's, summed over its threads.
struct alignas(64) RingDesc {
  std::atomic<uint64_t> head;  // words published by the producer: every record below is whole
  std::atomic<uint32_t> state;
  int32_t parent;                  // ring of the creating thread, -1 if none
  int64_t os_tid;                  // kernel thread id, written by the thread itself
  uint64_t pthread_handle;         // pthread_t, for matching pthread_join to the ring
  std::atomic<uint32_t> released;  // kRelease* bits
  // The claim's number (ShmHeader::claims, low bits): of two unjoined threads
  // with one pthread_t (a detach the runtime missed), the later claim is the live one.
  std::atomic<uint32_t> serial;
  // Records dropped, by kind: on overflow, and a handler's atomics on a
  // stripe its thread held (runtime/hooks_atomic.cc).
  std::atomic<uint64_t> lost[kLostKinds];
  alignas(64) std::atomic<uint64_t> tail;  // words consumed by the drainer
  // The producing thread's writer state (the runtime's ThreadState), on lines
  // of its own. The runtime publishes `head` at every ordered record, every
  // kPublishWords words, every pthread call in ebpf mode and at thread end,
  // not per access (a store per access to a line the drainer polls); what it
  // wrote since is counted here, and read by the drainer only once the target
  // is gone.
  alignas(64) uint64_t producer[15];
  // recorder: non-zero while the recording is paused (the service's duty
  // cycle, docs/runtime.md "Pausing"): the thread's hooks then write nothing
  // but its start and end. On the writer state's second line, which the
  // thread reads anyway, so that a hook finds it from the state it already
  // holds (one load). The recorder sets it in every descriptor, free ones
  // included, so that a thread starting on a ring finds the current state;
  // the runtime never writes it. Accessed with __atomic builtins.
  uint32_t paused;
  uint32_t paused_pad_;
};

// Words the producer wrote, published or not (0 before it started). Only
// meaningful once the producing process is gone; the cursor is stored after
// the record it ends (a release store).
inline uint64_t WrittenWords(const RingDesc& d) {
  const uint64_t cursor = __atomic_load_n(&d.producer[kProducerCursor], __ATOMIC_ACQUIRE);
  return (cursor - d.producer[kProducerOrigin]) / 8;
}

inline size_t ShmBytes(uint32_t max_rings, uint64_t ring_words) {
  return sizeof(ShmHeader) + sizeof(RingDesc) * max_rings + max_rings * ring_words * 8;
}
inline uint64_t RingOffset(uint32_t max_rings) { return sizeof(ShmHeader) + sizeof(RingDesc) * max_rings; }

inline RingDesc* RingDescs(ShmHeader* h) { return reinterpret_cast<RingDesc*>(h + 1); }
inline uint64_t* RingData(ShmHeader* h, uint32_t ring) {
  return reinterpret_cast<uint64_t*>(reinterpret_cast<char*>(h) + h->ring_offset) + ring * h->ring_words;
}

// The attach point (docs/runtime.md, "Attach mode"): a program started without
// SEER_RT_SHM_FD creates a one-page memfd named kAttachName holding this header.
// `seer record -p PID` finds it among the process's open files, claims it, grows
// the memfd and lays out a ShmHeader at kAttachAreaOffset, then asks the runtime
// to start. The runtime maps the area on a thread's next hook.
inline constexpr const char* kAttachName = "seer-rt-attach";
inline constexpr uint64_t kAttachMagic = 0x3174612d72656573ull;  // "seer-at1"
inline constexpr uint32_t kAttachVersion = 1;
inline constexpr uint64_t kAttachAreaOffset = 4096;  // the attach page, then the area

enum AttachState : uint32_t {
  kAttachIdle = 0,       // nobody records the program
  kAttachClaimed = 1,    // a recorder took it and is laying out the area
  kAttachRequested = 2,  // the area is ready: threads start recording on their next hook
  kAttachDetached = 3,   // the recorder is done (or gone): stop writing, never wait for it
};

struct alignas(64) AttachPoint {
  uint64_t magic;
  uint32_t version;
  std::atomic<uint32_t> state;        // AttachState
  std::atomic<int64_t> recorder_pid;  // who claimed it: the runtime stops waiting once it is gone
  // Attach by injection (runtime/attach_inject.cc): 1 once the runtime has put
  // the program's calls back after the detach (or its recorder's death).
  std::atomic<uint32_t> restored;
  // Attach by injection: the recorder's ChildListener socket (NUL-terminated;
  // empty: forked children are not followed), written before kAttachRequested.
  // An injected process has no SEER_RT_CHILDREN in its environment: a child it
  // forks copies the path from here and asks as a launched child does, and gets
  // an area laid out as an attach memfd (this page first, then the ShmHeader at
  // kAttachAreaOffset), whose page says when its recorder detaches. Appended
  // last: a runtime older than the field never reads it.
  char children_socket[108];
};
static_assert(sizeof(AttachPoint) <= kAttachAreaOffset, "the attach point is one page");

static_assert(std::atomic<uint64_t>::is_always_lock_free, "rings are shared across processes");

}  // namespace seer::rt
