// RaceFuzzer's race-directed random scheduler (Sen, PLDI 2008), switched on by
// `seer fuzz` through the environment (SEER_FUZZ="seed,pc_a,pc_b", pcs as
// offsets in the executable; SEER_FUZZ_OUT: the file that receives the
// confirmed races). Never on while recording.
//
// One run token: at most one thread runs between scheduling points (the
// pthread wrappers, atomics, thread start and end, and every access to one of
// the pair's two statements). At each point a seeded PRNG picks the next holder
// among the runnable threads, so one seed is one schedule. A thread reaching a
// statement of the pair is postponed until another thread reaches the other
// statement on overlapping bytes with at least one write: the race is real, is
// written to SEER_FUZZ_OUT with both stacks, and a coin decides which access
// goes first. A postponed thread is released when every other thread is
// postponed, blocked or done (docs/runtime.md, "Race-directed scheduling").
//
// Atomicity mode ("seed,first,second,remote"): a thread that made its access at
// `first` is held at its next scheduling points and before its access at
// `second` on those bytes, until another thread makes a conflicting access at
// `remote` on them (then it goes on), or for a bounded time; reaching `second`
// after such an intrusion confirms the violation (docs/runtime.md,
// "Atomicity-directed scheduling").
//
// Cost when off: the hooks reach these functions only from the slow paths that
// a thread not recording takes anyway, behind one test of g_fuzz.on.
#pragma once

#include <pthread.h>

#include <cstdint>

#define SEER_FUZZ_INLINE inline __attribute__((always_inline))

namespace seer::rt {

// What a run is steered towards: a race between two statements (RaceFuzzer), or
// an atomicity violation: one thread's accesses at `first` and `second` with
// another thread's access at `remote` between them (AtomFuzzer, Park and Sen,
// FSE 2008; CTrigger, Park, Lu and Zhou, ASPLOS 2009). SEER_FUZZ is then
// "seed,first,second,remote".
enum class FuzzMode : uint8_t { kRace, kAtomicity };

struct FuzzConfig {
  bool on = false;
  FuzzMode mode = FuzzMode::kRace;
  // Run-time pcs. A race: the pair's two statements. An atomicity violation:
  // first, second, remote.
  uint64_t target[3] = {0, 0, 0};
};
extern FuzzConfig g_fuzz;

// Reads SEER_FUZZ and takes the token for the calling (main) thread. Called once
// from Initialize when the process is not being recorded.
void FuzzInitialize();

SEER_FUZZ_INLINE bool FuzzOn() { return __builtin_expect(g_fuzz.on, 0); }

// An access to a target statement: may postpone the calling thread.
void FuzzAtTarget(uint64_t addr, uint64_t size, bool write, uint64_t pc);

// A plain access or range (from the hooks' slow paths).
SEER_FUZZ_INLINE void FuzzAccess(uint64_t addr, uint64_t size, bool write, uint64_t pc) {
  if (FuzzOn() && (pc == g_fuzz.target[0] || pc == g_fuzz.target[1] || pc == g_fuzz.target[2]))
    FuzzAtTarget(addr, size, write, pc);
}

// Function entry (`call_pc`: the call site) and exit: the shadow stack that
// the race reports show.
void FuzzFunction(bool entry, uint64_t call_pc);

// A scheduling point: the PRNG picks the next thread to run (maybe the caller).
// Called after every operation that may let another thread proceed.
void FuzzYield();

// A sleep: a scheduling point that takes no time while another thread can run
// (runnable or postponed): under the scheduler only one thread runs, so a sleep
// holding the token would only delay the others, and the time a program sleeps
// to let another thread act passes as that thread's turn. Returns whether the
// caller should still sleep (no other thread can run: it waits for something
// outside the scheduler, or for time itself).
bool FuzzSleep();

// A blocking acquire done as repeated tries under the token, so that whether it
// succeeds depends only on the schedule: `try_fn` returns 0 on success; `busy`
// is its "would block" result. A thread whose try fails waits, disabled, until
// another thread passes a scheduling point.
int FuzzAcquire(int (*try_fn)(void*), void* object, int busy);
// sem_wait's contract (-1 and errno EAGAIN when it would block).
int FuzzSemWait(int (*try_fn)(void*), void* sem);

// Around a call that may block in the kernel and that the scheduler does not
// model (cond waits, barriers, timed waits, pthread_once): the token is handed
// on before, and taken back after. Nothing then depends on timing except which
// thread comes back first.
void FuzzBlockBegin();
void FuzzBlockEnd();

template <typename Fn, typename... Args>
int FuzzBlocking(Fn fn, Args... args) {
  FuzzBlockBegin();
  const int rc = fn(args...);
  FuzzBlockEnd();
  return rc;
}

// A release (unlock, post, signal): the call, then a scheduling point at which
// the threads it may have enabled get their chance.
SEER_FUZZ_INLINE int FuzzRelease(int (*fn)(void*), void* object) {
  const int rc = fn(object);
  FuzzYield();
  return rc;
}

// A signal handler's run (interpose_signal.cc's trampoline, around the
// program's handler). The handler belongs to the step of the thread it
// interrupted, as ThreadSanitizer runs it in that thread's context. When it
// interrupted the thread's own code while the thread held the token (a
// raise(), or a signal arriving between two scheduling points), its points
// are the thread's points as usual. When it interrupted the scheduler itself
// (the thread waiting for the token, holding the scheduler's lock, or blocked
// in a call between FuzzBlockBegin and FuzzBlockEnd), the handler runs
// unscheduled: a point there would wait on the lock or the token the thread
// already holds or waits for (a run that hung until --timeout). Its accesses
// then still confirm a race with a thread postponed at the other statement.
// Returns what FuzzHandlerEnd gives back (handlers nest). A handler that
// leaves by longjmp leaves the thread unscheduled for the rest of the run.
bool FuzzHandlerBegin();
void FuzzHandlerEnd(bool outer);

// pthread_create and pthread_join under the scheduler. The child is runnable
// from the moment it is created (it waits for the token before its start
// routine); a join waits, disabled, until the child's start routine returned.
using CreateFn = int (*)(pthread_t*, const pthread_attr_t*, void* (*)(void*), void*);
int FuzzCreate(CreateFn real_create, pthread_t* th, const pthread_attr_t* attr, void* (*fn)(void*), void* arg);
int FuzzJoin(int (*real_join)(pthread_t, void**), pthread_t th, void** ret);
// pthread_tryjoin_np: a point where another thread may run (a thread polling
// a try would otherwise keep the token), then the try; a try that joined
// forgets the child as FuzzJoin does. (The timed joins are FuzzJoin: under
// the scheduler the child runs whenever the joiner waits.)
int FuzzTryJoin(int (*real_tryjoin)(pthread_t, void**), pthread_t th, void** ret);

}  // namespace seer::rt
