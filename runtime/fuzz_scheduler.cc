// RaceFuzzer's scheduler (fuzz_scheduler.h). All scheduling state is guarded by
// one spinlock and changes only at scheduling points; every decision draws from
// one seeded PRNG while the deciding thread holds the token, so a seed
// determines the schedule as long as the program's threads meet only at the
// points the scheduler models (docs/runtime.md says where that ends).
#include "runtime/fuzz_scheduler.h"

#include <fcntl.h>
#include <link.h>
#include <linux/futex.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <initializer_list>

#include "runtime/libc_io.h"
#include "runtime/rt_state.h"

extern "C" void* __libc_malloc(size_t);
extern "C" void __libc_free(void*);

namespace seer::rt {

FuzzConfig g_fuzz;

namespace {

constexpr int kMaxSlots = 1024;
constexpr int kStackDepth = 64;
constexpr int kMaxReports = 4;  // races written per run: the first is the proof, a few more say how often
// A postponed thread is released after this many scheduling points of the
// others: a thread that spins (an atomic flag, a sleep loop) is always
// runnable, so RaceFuzzer's rule alone (release when every other thread is
// postponed or blocked) would postpone forever a thread it waits for. Counted
// in scheduling points, not time, so that a seed still fixes the schedule.
constexpr uint64_t kMaxPostponedSteps = 48;
// Atomicity mode: a thread inside a candidate region is held at most this many
// times per region (each hold up to kMaxPostponedSteps of the others' points).
constexpr int kMaxHoldsPerRegion = 8;
// Atomicity mode: while every other thread is blocked in the kernel (a
// server's threads waiting for their clients), a held thread waits this long
// for one of them to come back and intrude. The intruder is often such a
// thread, which no count of scheduling points would ever wait for; the price
// is that the run then depends on timing (docs/runtime.md).
constexpr int64_t kHoldForBlockedNs = 20 * 1000 * 1000;

enum class State : uint8_t {
  kFree,       // no thread
  kRunnable,   // waits for the token, may be picked
  kRunning,    // holds the token
  kPostponed,  // reached a statement of the pair; waits for the other one
  kWaiting,    // a blocking acquire or join failed; retries after another thread's scheduling point
  kBlocked,    // in a kernel call the scheduler does not model
  kDone,       // start routine returned
};

// The shadow stack of call sites, kept by the function entry/exit hooks.
struct ShadowStack {
  int depth;
  uint64_t pcs[kStackDepth];
};

struct Access {
  uint64_t addr, size, pc;
  bool write;
};

// Atomicity mode: a thread's candidate region, from its access at `first`
// until its access at `second` on the same bytes.
struct Region {
  bool armed = false;
  bool intruded = false;  // another thread made the conflicting access at `remote`
  int holds = 0;
  Access first = {};
  ShadowStack first_stack = {};
  int remote_tid = 0;
  Access remote = {};
  ShadowStack remote_stack = {};
};

struct Slot {
  std::atomic<uint32_t> go{0};  // futex word: 1 once the token is handed to this thread
  State state = State::kFree;
  pthread_t handle = 0;
  int os_tid = 0;
  Access pending = {};        // the access a postponed thread is about to make
  uint64_t postponed_at = 0;  // g_steps when it was postponed
  int64_t held_since_ns = 0;  // atomicity mode: CLOCK_MONOTONIC when it was postponed
  ShadowStack* stack = nullptr;
  Region region;
};

Slot g_slots[kMaxSlots];
int g_slot_count = 0;
int g_holder = -1;
uint64_t g_rng = 0;
uint64_t g_bias = 0;  // the executable's load bias: run-time pc = offset + bias
int g_out_fd = -1;
int g_reports = 0;
// Scheduling events that timing decides, not the seed: a thread back from a
// call the scheduler does not model (it becomes runnable, or takes the free
// token, whenever the kernel lets it go), a thread taking the token nobody
// held (retrying an acquire, ending a hold, a thread the scheduler did not
// start). Counted so that seer fuzz can say when a seed may not replay its
// run, and log them so that a replay can follow them: one TimedRecord each,
// appended to SEER_FUZZ_TIMING at once (the run may crash at any point).
uint64_t g_timed_events = 0;
int g_timing_fd = -1;
uint64_t g_steps = 0;  // scheduling points passed, by every thread

// What a TimedRecord logs. Its layout is read by seer fuzz (cli/fuzz_command.cc).
enum class Timed : uint32_t {
  kReturn = 1,       // back from an unmodelled call while another thread held the token: runnable
  kReturnTake = 2,   // back from such a call, and took the free token
  kPollTake = 3,     // a retrying (or held) thread took the free token
  kJoin = 4,         // a thread the scheduler did not start joined (not followed in a replay)
  kDiverged = 9,     // a replay could not follow its schedule from here: `slot` is the record's index
  kTwoRunning = 10,  // `slot` woke while another thread held the token: a fault of this scheduler
};
struct TimedRecord {
  uint64_t step;  // g_steps when it happened
  int32_t slot;
  uint32_t kind;
};
static_assert(sizeof(TimedRecord) == 16);

// A replay (SEER_FUZZ_REPLAY: the records of an earlier run with the same
// seed): each timing event waits for its turn, the same step and the same
// order, and a pick at the step of an event still to come waits for it
// (PickLocked). When the run leaves the schedule (an event out of order, or
// none for kReplayPatienceNs) the rest of the run is free, and logged so.
constexpr int64_t kReplayPatienceNs = 2000ll * 1000 * 1000;
const TimedRecord* g_replay = nullptr;
size_t g_replay_count = 0;
size_t g_replay_next = 0;
bool g_replaying = false;
bool g_pick_deferred = false;  // a pick waits for the next event (PickLocked)
std::atomic<bool> g_lock{false};

__thread int tls_slot = -1;
__thread bool tls_unscheduled = false;  // past its end, or no slot left: runs unscheduled
__thread ShadowStack tls_stack;
// Inside the scheduler: one of its functions, or the blocking call between
// FuzzBlockBegin and FuzzBlockEnd (a counter: they nest). A signal handler
// that interrupts the thread here runs unscheduled (FuzzHandlerBegin).
__thread int tls_in_scheduler = 0;
__thread bool tls_handler_unscheduled = false;  // in such a handler

class InScheduler {
 public:
  InScheduler() {
    ++tls_in_scheduler;
    std::atomic_signal_fence(std::memory_order_seq_cst);
  }
  ~InScheduler() {
    std::atomic_signal_fence(std::memory_order_seq_cst);
    --tls_in_scheduler;
  }
  InScheduler(const InScheduler&) = delete;
  InScheduler& operator=(const InScheduler&) = delete;
};

// sched_yield without the interposer (interpose_sleep.cc), which is a scheduling point.
void Relax() { syscall(SYS_sched_yield); }

class Guard {
 public:
  Guard() {
    while (g_lock.exchange(true, std::memory_order_acquire))
      while (g_lock.load(std::memory_order_relaxed)) Relax();
  }
  ~Guard() { g_lock.store(false, std::memory_order_release); }
};

// splitmix64: small, and its stream depends on the seed only.
uint64_t Draw() {
  uint64_t z = (g_rng += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

// Monotonic nanoseconds, signed for differences (rt_state.h's NowNs).
int64_t Now() { return static_cast<int64_t>(NowNs()); }

void FutexWait(std::atomic<uint32_t>* word, const timespec* timeout) {
  LibcSyscall()(SYS_futex, reinterpret_cast<uint32_t*>(word), FUTEX_WAIT_PRIVATE, 0, timeout, nullptr, 0);
}
void FutexWake(std::atomic<uint32_t>* word) {
  LibcSyscall()(SYS_futex, reinterpret_cast<uint32_t*>(word), FUTEX_WAKE_PRIVATE, 1, nullptr, nullptr, 0);
}

// Under the lock. Threads disabled by a failed acquire get another try.
void EnableWaitersLocked() {
  for (int i = 0; i < g_slot_count; ++i)
    if (g_slots[i].state == State::kWaiting) g_slots[i].state = State::kRunnable;
}

// Under the lock: the next holder, drawn among the runnable threads; when there
// is none, a postponed thread drawn at random is released (RaceFuzzer's way out
// of its own deadlock); -1 when every thread is blocked, waiting or done.
int PickLocked() {
  int candidates[kMaxSlots];
  int n = 0;
  if (g_replaying && g_replay_next < g_replay_count && g_replay[g_replay_next].step == g_steps) {
    // The recorded run had a timing event before this pick: the event's
    // thread makes the pick when its turn comes (ResumePickLocked).
    g_pick_deferred = true;
    return -1;
  }
  ++g_steps;
  for (int i = 0; i < g_slot_count; ++i)
    if (g_slots[i].state == State::kPostponed && g_steps - g_slots[i].postponed_at > kMaxPostponedSteps)
      g_slots[i].state = State::kRunnable;
  for (int i = 0; i < g_slot_count; ++i)
    if (g_slots[i].state == State::kRunnable) candidates[n++] = i;
  if (n == 0 && g_fuzz.mode == FuzzMode::kAtomicity) {
    // Every other thread is postponed, waiting, blocked or done. A held thread
    // waits a while for one that is blocked in the kernel to come back
    // (WaitForToken polls for the end of the wait): nobody holds the token.
    bool blocked = false, fresh_hold = false;
    const int64_t now = Now();
    for (int i = 0; i < g_slot_count; ++i) {
      blocked |= g_slots[i].state == State::kBlocked;
      fresh_hold |= g_slots[i].state == State::kPostponed && now - g_slots[i].held_since_ns < kHoldForBlockedNs;
    }
    if (blocked && fresh_hold) return -1;
  }
  if (n == 0) {
    for (int i = 0; i < g_slot_count; ++i)
      if (g_slots[i].state == State::kPostponed) candidates[n++] = i;
  }
  if (n == 0) return -1;
  return candidates[Draw() % static_cast<uint64_t>(n)];
}

void HandToLocked(int next);

// Under the lock: whether a postponed thread has waited long enough for a
// thread in the kernel (PickLocked) to take the token nobody holds.
bool HoldOverLocked(const Slot& s) {
  return g_fuzz.mode == FuzzMode::kAtomicity && Now() - s.held_since_ns >= kHoldForBlockedNs;
}

void WriteRecordLocked(const TimedRecord& r) {
  if (g_timing_fd < 0) return;
  // The raw call: write itself is interposed (interpose_fd.cc), a scheduling point.
  if (LibcSyscall()(SYS_write, g_timing_fd, &r, sizeof r) < 0) {
    // Nothing to do: seer fuzz then reads fewer events, and says less of timing.
  }
}

// Under the lock: one more event that timing decided.
void LogTimedLocked(int slot, Timed kind) {
  ++g_timed_events;
  WriteRecordLocked({g_steps, slot, static_cast<uint32_t>(kind)});
}

// Under the lock: the replay ends here; the rest of the run is free.
void LeaveScheduleLocked() {
  if (!g_replaying) return;
  g_replaying = false;
  WriteRecordLocked({g_steps, static_cast<int32_t>(g_replay_next), static_cast<uint32_t>(Timed::kDiverged)});
  if (g_pick_deferred && g_holder < 0) {
    g_pick_deferred = false;
    HandToLocked(PickLocked());
  }
}

// Under the lock: whether a timing event of `me`, one of `kinds`, may happen
// now: always when not replaying; in a replay, when it is the next recorded
// event (consumed; *recorded is its kind). An event the schedule does not
// have next at this step, while the schedule is past it or over, leaves it.
bool TurnLocked(int me, std::initializer_list<Timed> kinds, Timed* recorded) {
  if (!g_replaying) return true;
  if (g_replay_next < g_replay_count) {
    const TimedRecord& r = g_replay[g_replay_next];
    bool kind_ok = false;
    for (Timed k : kinds) kind_ok |= r.kind == static_cast<uint32_t>(k);
    if (r.step == g_steps && r.slot == me && kind_ok) {
      ++g_replay_next;
      *recorded = static_cast<Timed>(r.kind);
      return true;
    }
    if (r.step >= g_steps) return false;  // still to come
  }
  LeaveScheduleLocked();
  return true;
}

// Under the lock: after an event of `me` that did not take the token, the
// pick that waited for it. That pick may hand the token to `me` itself, which
// then holds it without waiting: the wake-up flag HandToLocked set is taken
// here, or `me`'s next wait would find it and run beside the holder.
void ResumePickLocked(int me) {
  if (!g_pick_deferred || g_holder >= 0) return;
  g_pick_deferred = false;
  HandToLocked(PickLocked());  // may wait again, for the next event at this step
  if (g_holder == me) g_slots[me].go.store(0, std::memory_order_relaxed);
}

// Under the lock: `me` takes the token nobody holds, at a moment timing chose.
void TakeFreeTokenLocked(int me, Timed kind) {
  g_holder = me;
  g_slots[me].state = State::kRunning;
  g_pick_deferred = false;
  LogTimedLocked(me, kind);
}

// A raw millisecond's sleep (nanosleep is interposed: interpose_sleep.cc).
void SleepMillisecond() {
  const timespec pause = {0, 1000000};
  LibcSyscall()(SYS_nanosleep, &pause, nullptr);
}

// Under the lock: makes `next` the holder (or nobody) and wakes it.
void HandToLocked(int next) {
  g_holder = next;
  if (next < 0) return;
  g_slots[next].state = State::kRunning;
  g_slots[next].go.store(1, std::memory_order_release);
  FutexWake(&g_slots[next].go);
}

// Blocks until the token is handed to `me`. A thread that waits disabled
// (`poll`) also takes the token when nobody holds it: every thread left may be
// blocked in the kernel, on something only this thread's retry can see change.
// So does a held thread (atomicity mode) once its wait for them is over.
void WaitForToken(int me, bool poll) {
  Slot& s = g_slots[me];
  const timespec pause = {0, 1000000};
  int64_t free_since = 0;  // replaying: when this poller first found the token free
  while (s.go.load(std::memory_order_acquire) == 0) {
    FutexWait(&s.go, poll ? &pause : nullptr);
    if (poll && s.go.load(std::memory_order_acquire) == 0) {
      Guard g;
      // In a replay the schedule says when (a held thread's time is up then).
      const bool may =
          s.state == State::kWaiting || (s.state == State::kPostponed && (g_replaying || HoldOverLocked(s)));
      if (g_holder >= 0 || !may) {
        free_since = 0;
        continue;
      }
      Timed recorded = Timed{0};
      if (TurnLocked(me, {Timed::kPollTake}, &recorded)) {
        TakeFreeTokenLocked(me, Timed::kPollTake);
        break;  // the token is this thread's: no wake-up to wait for
      }
      if (free_since == 0) free_since = Now();
      if (Now() - free_since > kReplayPatienceNs) LeaveScheduleLocked();
    }
  }
  s.go.store(0, std::memory_order_relaxed);
  // Woken, this thread holds the token. Another holder means the wake-up was
  // a flag left from an earlier hand-off and two threads now run at once: the
  // run's schedule is not the one its seed and log say. Logged, so that seer
  // fuzz refuses the run's outcome instead of reporting it.
  Guard g;
  if (g_holder != me) WriteRecordLocked({g_steps, me, static_cast<uint32_t>(Timed::kTwoRunning)});
}

// Under the lock: leaves the token with `next`, or keeps it when it is `me`.
// Returns whether the caller must wait.
bool PassLocked(int me, int next) {
  if (next == me) {
    g_slots[me].state = State::kRunning;
    return false;
  }
  HandToLocked(next);
  return true;
}

int NewSlotLocked(State state) {
  if (g_slot_count >= kMaxSlots) return -1;
  const int i = g_slot_count++;
  g_slots[i].state = state;
  g_slots[i].go.store(0, std::memory_order_relaxed);
  return i;
}

// The slot of the calling thread; a thread the scheduler did not start (not
// created through pthread_create) joins here and waits for its turn. -1: the
// thread runs unscheduled.
int Me() {
  if (tls_unscheduled || tls_handler_unscheduled) return -1;
  if (__builtin_expect(tls_slot >= 0, 1)) return tls_slot;
  bool wait = false;
  {
    Guard g;
    const int i = NewSlotLocked(State::kRunnable);
    if (i < 0) {
      tls_unscheduled = true;
      return -1;
    }
    tls_slot = i;
    g_slots[i].stack = &tls_stack;
    g_slots[i].os_tid = static_cast<int>(syscall(SYS_gettid));
    if (g_holder < 0) {
      TakeFreeTokenLocked(i, Timed::kJoin);
    } else {
      LogTimedLocked(i, Timed::kJoin);
    }
    wait = g_holder != i;
  }
  if (wait) WaitForToken(tls_slot, false);
  return tls_slot;
}

uint64_t Offset(uint64_t pc) { return pc - g_bias; }

// Appends "k=v1,v2,..." of a stack: the access's own pc first, then its call sites.
size_t PutStack(char* out, size_t room, const char* key, uint64_t pc, const ShadowStack* st) {
  size_t n = static_cast<size_t>(snprintf(out, room, " %s=%lx", key, static_cast<unsigned long>(Offset(pc))));
  if (st == nullptr) return n;
  // Deeper than kStackDepth, the frames past it were not kept (FuzzFunction).
  for (int i = st->depth < kStackDepth ? st->depth : kStackDepth; i-- > 0 && n < room;)
    n += static_cast<size_t>(snprintf(out + n, room - n, ",%lx", static_cast<unsigned long>(Offset(st->pcs[i]))));
  return n;
}

// Under the lock: one confirmed race, written at once (the run may crash next).
// `a`: the postponed access, `b`: the arriving one; `b_first`: the coin's side.
void ReportLocked(int a_slot, const Access& b, int b_slot, bool b_first) {
  if (g_out_fd < 0 || g_reports >= kMaxReports) return;
  ++g_reports;
  const Slot& sa = g_slots[a_slot];
  const Access& a = sa.pending;
  char line[4096];
  size_t n = static_cast<size_t>(snprintf(
      line, sizeof line, "race addr=%lx first=%s a_tid=%d a_size=%lu a_write=%d b_tid=%d b_size=%lu b_write=%d",
      static_cast<unsigned long>(a.addr), b_first ? "b" : "a", sa.os_tid, static_cast<unsigned long>(a.size),
      a.write ? 1 : 0, g_slots[b_slot].os_tid, static_cast<unsigned long>(b.size), b.write ? 1 : 0));
  n += PutStack(line + n, sizeof line - n, "a_stack", a.pc, sa.stack);
  if (n < sizeof line) n += PutStack(line + n, sizeof line - n, "b_stack", b.pc, g_slots[b_slot].stack);
  if (n >= sizeof line - 1) n = sizeof line - 2;
  line[n++] = '\n';
  if (LibcWrite(g_out_fd, line, n) < 0) {
    // Nothing to do: the run then simply reports no confirmation.
  }
}

bool Overlap(const Access& x, const Access& y) { return x.addr < y.addr + y.size && y.addr < x.addr + x.size; }

// Whether a postponed access at `other` and one at `pc` are the pair's two statements.
bool OtherStatement(uint64_t pc, uint64_t other) {
  return (pc == g_fuzz.target[0] && other == g_fuzz.target[1]) || (pc == g_fuzz.target[1] && other == g_fuzz.target[0]);
}

int FindExecutable(dl_phdr_info* info, size_t, void* out) {
  *static_cast<uint64_t*>(out) = info->dlpi_addr;
  return 1;  // the first object is the executable
}

void OnForkChild() {
  // Only the forking thread exists in the child: it keeps the token.
  for (int i = 0; i < g_slot_count; ++i)
    if (i != tls_slot) g_slots[i].state = State::kDone;
  g_holder = tls_slot;
  g_lock.store(false);
}

pthread_key_t g_end_key;

void EndThread() {
  if (tls_slot < 0 || tls_unscheduled) return;
  const int me = tls_slot;
  tls_unscheduled = true;  // what runs after this (TLS destructors) runs unscheduled
  Guard g;
  g_slots[me].state = State::kDone;
  EnableWaitersLocked();
  HandToLocked(PickLocked());
}

void OnThreadEnd(void*) { EndThread(); }  // pthread_exit: the start routine did not return

struct StartArgs {
  void* (*fn)(void*);
  void* arg;
  int slot;
};

void* FuzzThreadStart(void* p) {
  const StartArgs args = *static_cast<StartArgs*>(p);
  __libc_free(p);
  tls_slot = args.slot;
  if (args.slot >= 0) {
    g_slots[args.slot].stack = &tls_stack;
    g_slots[args.slot].os_tid = static_cast<int>(syscall(SYS_gettid));
    pthread_setspecific(g_end_key, reinterpret_cast<void*>(1));
    WaitForToken(args.slot, false);
  } else {
    tls_unscheduled = true;
  }
  void* ret = args.fn(args.arg);
  EndThread();
  return ret;
}

// Reads a schedule written by an earlier run (SEER_FUZZ_TIMING). Unreadable:
// no replay, and the run's own log says it left the schedule at once.
void LoadSchedule(const char* path) {
  g_replaying = true;
  const int fd = LibcOpen(path, O_RDONLY | O_CLOEXEC);
  if (fd >= 0) {
    // At most 1M events (16 MB), from memory the program does not see.
    constexpr size_t kMaxRecords = 1 << 20;
    void* mem = mmap(nullptr, kMaxRecords * sizeof(TimedRecord), PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (mem != MAP_FAILED) {
      char* out = static_cast<char*>(mem);
      size_t got = 0;
      for (;;) {
        const ssize_t n = LibcRead(fd, out + got, kMaxRecords * sizeof(TimedRecord) - got);
        if (n <= 0) break;
        got += static_cast<size_t>(n);
      }
      // Joins are not followed: dropped, as are the scheduler's own faults. A
      // record of an earlier divergence ends what can be followed.
      auto* records = static_cast<TimedRecord*>(mem);
      size_t kept = 0;
      for (size_t i = 0; i < got / sizeof(TimedRecord); ++i) {
        if (records[i].kind == static_cast<uint32_t>(Timed::kDiverged)) break;
        if (records[i].kind != static_cast<uint32_t>(Timed::kJoin) &&
            records[i].kind != static_cast<uint32_t>(Timed::kTwoRunning))
          records[kept++] = records[i];
      }
      g_replay = records;
      g_replay_count = kept;
    }
    LibcClose(fd);
  }
  if (g_replay == nullptr) LeaveScheduleLocked();
}

}  // namespace

bool FuzzHandlerBegin() {
  const bool outer = tls_handler_unscheduled;
  // The holder is changed only by itself (or by a poller when nobody holds
  // it): the thread holds the token exactly when it reads its own slot here.
  tls_handler_unscheduled = outer || tls_unscheduled || tls_in_scheduler > 0 || tls_slot < 0 ||
                            __atomic_load_n(&g_holder, __ATOMIC_RELAXED) != tls_slot;
  std::atomic_signal_fence(std::memory_order_seq_cst);
  return outer;
}

void FuzzHandlerEnd(bool outer) {
  std::atomic_signal_fence(std::memory_order_seq_cst);
  tls_handler_unscheduled = outer;
}

void FuzzInitialize() {
  const char* spec = getenv("SEER_FUZZ");
  if (spec == nullptr || *spec == '\0') return;
  unsigned long long seed = 0, a = 0, b = 0, c = 0;
  const int fields = sscanf(spec, "%llu,%llx,%llx,%llx", &seed, &a, &b, &c);
  if (fields != 3 && fields != 4) {
    static const char kMsg[] =
        "seer: SEER_FUZZ must be \"seed,pc_a,pc_b\" or \"seed,first,second,remote\" (hex offsets); not fuzzing\n";
    if (LibcWrite(2, kMsg, sizeof kMsg - 1) < 0) return;
    return;
  }
  dl_iterate_phdr(FindExecutable, &g_bias);
  g_fuzz.mode = fields == 4 ? FuzzMode::kAtomicity : FuzzMode::kRace;
  g_fuzz.target[0] = a + g_bias;
  g_fuzz.target[1] = b + g_bias;
  // No access is at pc 0: a race's third target never matches.
  g_fuzz.target[2] = fields == 4 ? c + g_bias : 0;
  g_rng = seed;
  if (const char* out = getenv("SEER_FUZZ_OUT"))
    g_out_fd = LibcOpen(out, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
  if (const char* timing = getenv("SEER_FUZZ_TIMING"))
    g_timing_fd = LibcOpen(timing, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0600);
  if (const char* replay = getenv("SEER_FUZZ_REPLAY")) LoadSchedule(replay);
  pthread_key_create(&g_end_key, OnThreadEnd);
  pthread_atfork(nullptr, nullptr, OnForkChild);
  // The calling thread (the main thread, from the constructor) holds the token.
  tls_slot = NewSlotLocked(State::kRunning);
  g_slots[tls_slot].stack = &tls_stack;
  g_slots[tls_slot].os_tid = static_cast<int>(syscall(SYS_gettid));
  g_holder = tls_slot;
  g_fuzz.on = true;
}

void FuzzFunction(bool entry, uint64_t call_pc) {
  ShadowStack& st = tls_stack;
  if (entry) {
    if (st.depth < kStackDepth) st.pcs[st.depth] = call_pc;
    ++st.depth;
  } else if (st.depth > 0) {
    --st.depth;
  }
}

namespace {

// Under the lock: the postponed threads whose pending access races with
// `mine` (RaceFuzzer's set R), into `racing`; returns how many.
int RacingLocked(int me, const Access& mine, int* racing) {
  int n = 0;
  for (int i = 0; i < g_slot_count; ++i) {
    const Slot& s = g_slots[i];
    if (i != me && s.state == State::kPostponed && OtherStatement(mine.pc, s.pending.pc) && Overlap(s.pending, mine) &&
        (mine.write || s.pending.write))
      racing[n++] = i;
  }
  return n;
}

// An access of a handler that runs unscheduled: it cannot wait, but it
// confirms a race with a thread postponed at the other statement (which stays
// postponed: the handler's access came first). Not when the handler
// interrupted the scheduler, which may hold the lock.
void AtTargetInHandler(const Access& mine) {
  const int me = tls_slot;
  if (me < 0 || tls_unscheduled || tls_in_scheduler > 0) return;
  InScheduler in;
  Guard g;
  int racing[kMaxSlots];
  if (RacingLocked(me, mine, racing) > 0) ReportLocked(racing[0], mine, me, /*b_first=*/true);
}

// --- Atomicity mode -------------------------------------------------------

// Under the lock: starts the calling thread's region at its access at `first`.
void ArmLocked(int me, const Access& first) {
  Region& r = g_slots[me].region;
  r.armed = true;
  r.intruded = false;
  r.holds = 0;
  r.first = first;
  r.first_stack = *g_slots[me].stack;
}

// Under the lock: `mine`, an access at `remote`, intrudes into the regions of
// other threads on overlapping bytes when it conflicts with their first access
// (the candidates' patterns: a write between any two accesses, a read between
// two writes; the statements fix the kinds of the rest). A held thread so
// intruded goes on: it may now reach `second`. Returns whether any was.
bool IntrudeLocked(int me, const Access& mine) {
  bool any = false;
  for (int i = 0; i < g_slot_count; ++i) {
    Slot& s = g_slots[i];
    Region& r = s.region;
    if (i == me || !r.armed || r.intruded || !Overlap(r.first, mine) || !(mine.write || r.first.write)) continue;
    r.intruded = true;
    r.remote = mine;
    r.remote_tid = g_slots[me].os_tid;
    r.remote_stack = *g_slots[me].stack;
    if (s.state == State::kPostponed) s.state = State::kRunnable;
    any = true;
  }
  return any;
}

// Under the lock: whether the calling thread is held at this scheduling point
// (inside its region, not intruded yet, holds left); if so it is postponed.
bool HoldLocked(int me) {
  Slot& s = g_slots[me];
  Region& r = s.region;
  if (g_fuzz.mode != FuzzMode::kAtomicity || !r.armed || r.intruded || r.holds >= kMaxHoldsPerRegion) return false;
  ++r.holds;
  s.postponed_at = g_steps;
  s.held_since_ns = Now();
  return true;
}

// Under the lock: the region ends at `second`. Intruded: the violation
// happened (first, remote, second in this order), and is written at once.
void EndRegionLocked(int me, const Access& second) {
  Slot& s = g_slots[me];
  Region& r = s.region;
  r.armed = false;
  if (!r.intruded || g_out_fd < 0 || g_reports >= kMaxReports) return;
  ++g_reports;
  char line[4096];
  size_t n = static_cast<size_t>(
      snprintf(line, sizeof line,
               "atomicity addr=%lx first_tid=%d first_size=%lu first_write=%d remote_tid=%d remote_size=%lu "
               "remote_write=%d second_size=%lu second_write=%d",
               static_cast<unsigned long>(r.first.addr), s.os_tid, static_cast<unsigned long>(r.first.size),
               r.first.write ? 1 : 0, r.remote_tid, static_cast<unsigned long>(r.remote.size), r.remote.write ? 1 : 0,
               static_cast<unsigned long>(second.size), second.write ? 1 : 0));
  n += PutStack(line + n, sizeof line - n, "first_stack", r.first.pc, &r.first_stack);
  if (n < sizeof line) n += PutStack(line + n, sizeof line - n, "remote_stack", r.remote.pc, &r.remote_stack);
  if (n < sizeof line) n += PutStack(line + n, sizeof line - n, "second_stack", second.pc, s.stack);
  if (n >= sizeof line - 1) n = sizeof line - 2;
  line[n++] = '\n';
  if (LibcWrite(g_out_fd, line, n) < 0) {
    // Nothing to do: the run then simply reports no confirmation.
  }
}

// An access at one of the three statements. The order of the steps matters
// when statements coincide: an intruder is never held before its own intruding
// access (the access must happen first), and an access at both `second` and
// `first` ends one region and starts the next.
void AtomicityAtTarget(const Access& mine) {
  const bool at_first = mine.pc == g_fuzz.target[0];
  const bool at_second = mine.pc == g_fuzz.target[1];
  const bool at_remote = mine.pc == g_fuzz.target[2];
  if (tls_handler_unscheduled) {
    // A handler that cannot wait may still intrude (not when it interrupted the
    // scheduler, which may hold the lock).
    if (!at_remote || tls_slot < 0 || tls_unscheduled || tls_in_scheduler > 0) return;
    InScheduler in;
    Guard g;
    IntrudeLocked(tls_slot, mine);
    return;
  }
  InScheduler in;
  const int me = Me();
  if (me < 0) return;
  bool wait = false;
  {
    Guard g;
    const bool intruding = at_remote && IntrudeLocked(me, mine);
    Region& r = g_slots[me].region;
    if (at_second && r.armed && Overlap(r.first, mine)) {
      if (!intruding && HoldLocked(me)) {
        g_slots[me].state = State::kPostponed;
        g_slots[me].pending = mine;
        wait = PassLocked(me, PickLocked());
      }
      if (!wait) EndRegionLocked(me, mine);
    }
    if (!wait && at_first) ArmLocked(me, mine);
  }
  if (!wait) return;
  WaitForToken(me, /*poll=*/true);
  Guard g;
  if (g_slots[me].region.armed && Overlap(g_slots[me].region.first, mine)) EndRegionLocked(me, mine);
  if (at_first) ArmLocked(me, mine);
}

}  // namespace

void FuzzAtTarget(uint64_t addr, uint64_t size, bool write, uint64_t pc) {
  const Access mine = {addr, size, pc, write};
  if (g_fuzz.mode == FuzzMode::kAtomicity) return AtomicityAtTarget(mine);
  if (tls_handler_unscheduled) return AtTargetInHandler(mine);
  InScheduler in;
  const int me = Me();
  if (me < 0) return;
  bool wait;
  {
    Guard g;
    int racing[kMaxSlots];
    const int n = RacingLocked(me, mine, racing);
    if (n > 0) {
      const bool mine_first = (Draw() & 1) == 0;
      ReportLocked(racing[0], mine, me, mine_first);
      if (mine_first) {
        g_slots[me].state = State::kRunning;  // the others stay postponed
        return;
      }
      for (int i = 0; i < n; ++i) g_slots[racing[i]].state = State::kRunnable;
    }
    // No race yet (or the others go first): wait at this statement.
    g_slots[me].state = State::kPostponed;
    g_slots[me].pending = mine;
    g_slots[me].postponed_at = g_steps;
    wait = PassLocked(me, PickLocked());
  }
  if (wait) WaitForToken(me, false);
}

void FuzzYield() {
  InScheduler in;
  const int me = Me();
  if (me < 0) return;
  bool wait;
  {
    Guard g;
    EnableWaitersLocked();
    g_slots[me].state = HoldLocked(me) ? State::kPostponed : State::kRunnable;
    wait = PassLocked(me, PickLocked());
  }
  if (wait) WaitForToken(me, g_fuzz.mode == FuzzMode::kAtomicity);
}

bool FuzzSleep() {
  InScheduler in;
  const int me = Me();
  if (me < 0) return true;
  bool others = false;
  {
    Guard g;
    for (int i = 0; i < g_slot_count && !others; ++i)
      others = i != me && (g_slots[i].state == State::kRunnable || g_slots[i].state == State::kPostponed);
  }
  FuzzYield();
  return !others;
}

int FuzzAcquire(int (*try_fn)(void*), void* object, int busy) {
  InScheduler in;
  const int me = Me();
  if (me < 0) {
    // Unscheduled: a plain blocking loop.
    int rc;
    while ((rc = try_fn(object)) == busy) Relax();
    return rc;
  }
  // A scheduling point before the acquire: another thread may take the lock first.
  FuzzYield();
  for (;;) {
    const int rc = try_fn(object);
    if (rc != busy) return rc;
    {
      Guard g;
      g_slots[me].state = State::kWaiting;
      HandToLocked(PickLocked());
    }
    WaitForToken(me, true);
  }
}

int FuzzSemWait(int (*try_fn)(void*), void* sem) {
  InScheduler in;
  for (;;) {
    const int me = Me();
    if (me >= 0) FuzzYield();
    if (try_fn(sem) == 0) return 0;
    if (errno != EAGAIN) return -1;
    if (me < 0) {
      Relax();
      continue;
    }
    {
      Guard g;
      g_slots[me].state = State::kWaiting;
      HandToLocked(PickLocked());
    }
    WaitForToken(me, true);
  }
}

void FuzzBlockBegin() {
  // Inside the scheduler until FuzzBlockEnd: the thread holds no token in the call.
  ++tls_in_scheduler;
  std::atomic_signal_fence(std::memory_order_seq_cst);
  const int me = Me();
  if (me < 0) return;
  Guard g;
  g_slots[me].state = State::kBlocked;
  EnableWaitersLocked();  // the call may release what they wait for (a cond wait unlocks its mutex)
  HandToLocked(PickLocked());
}

void FuzzBlockEnd() {
  InScheduler in;  // with FuzzBlockBegin's count, given back on return
  --tls_in_scheduler;
  const int me = tls_slot;
  if (me < 0 || tls_unscheduled || tls_handler_unscheduled) return;
  // Runnable (or holding the free token) from a moment the kernel chose: in a
  // replay, the moment the schedule says.
  const int64_t start = Now();
  bool wait = false;
  for (bool done = false; !done;) {
    {
      Guard g;
      Timed recorded = Timed{0};  // set when the event followed the schedule
      done = TurnLocked(me, {Timed::kReturn, Timed::kReturnTake}, &recorded);
      if (done) {
        // Followed: the recorded kind decides; free: whether the token is.
        const bool take = recorded == Timed{0} ? g_holder < 0 : recorded == Timed::kReturnTake;
        if (take && g_holder < 0) {
          TakeFreeTokenLocked(me, Timed::kReturnTake);
        } else {
          if (take) LeaveScheduleLocked();  // the recorded run found the token free here
          g_slots[me].state = State::kRunnable;
          LogTimedLocked(me, Timed::kReturn);
          ResumePickLocked(me);
        }
        wait = g_holder != me;
      } else if (Now() - start > kReplayPatienceNs) {
        LeaveScheduleLocked();  // the next turn is free
      }
    }
    if (!done) SleepMillisecond();
  }
  if (wait) WaitForToken(me, false);
}

int FuzzCreate(CreateFn real_create, pthread_t* th, const pthread_attr_t* attr, void* (*fn)(void*), void* arg) {
  InScheduler in;
  auto* args = static_cast<StartArgs*>(__libc_malloc(sizeof(StartArgs)));
  if (args == nullptr) return EAGAIN;
  const int me = Me();
  int child = -1;
  if (me >= 0) {
    Guard g;
    child = NewSlotLocked(State::kFree);  // runnable once it exists
  }
  *args = {fn, arg, child};
  const int rc = real_create(th, attr, FuzzThreadStart, args);
  if (rc != 0) {
    __libc_free(args);
    return rc;
  }
  if (child >= 0) {
    Guard g;
    g_slots[child].handle = *th;
    g_slots[child].state = State::kRunnable;
  }
  FuzzYield();
  return 0;
}

namespace {

// The slot of the thread whose pthread_t is `th` (the latest, as pthread_t
// values are reused), or -1 when the scheduler did not start it.
int SlotOfLocked(pthread_t th) {
  for (int i = g_slot_count; i-- > 0;)
    if (g_slots[i].handle == th && g_slots[i].state != State::kFree) return i;
  return -1;
}

}  // namespace

int FuzzJoin(int (*real_join)(pthread_t, void**), pthread_t th, void** ret) {
  InScheduler in;
  const int me = Me();
  int target = -1;
  if (me >= 0) {
    Guard g;
    target = SlotOfLocked(th);
  }
  if (target < 0) {
    // A thread the scheduler did not start: wait for it in the kernel, without the token.
    FuzzBlockBegin();
    const int rc = real_join(th, ret);
    FuzzBlockEnd();
    return rc;
  }
  {
    for (;;) {
      {
        Guard g;
        if (g_slots[target].state == State::kDone) {
          g_slots[target].handle = 0;  // pthread_t values are reused
          break;
        }
        g_slots[me].state = State::kWaiting;
        HandToLocked(PickLocked());
      }
      WaitForToken(me, true);
    }
  }
  // The child's start routine has returned: this waits only for its exit.
  return real_join(th, ret);
}

int FuzzTryJoin(int (*real_tryjoin)(pthread_t, void**), pthread_t th, void** ret) {
  InScheduler in;
  FuzzYield();
  const int rc = real_tryjoin(th, ret);
  if (rc != 0 || Me() < 0) return rc;
  Guard g;
  // Joined, so its start routine returned (kDone): forgotten as FuzzJoin does.
  if (const int target = SlotOfLocked(th); target >= 0) g_slots[target].handle = 0;
  return rc;
}

}  // namespace seer::rt
