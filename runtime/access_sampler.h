// Samples for the watchpoints (watchpoints.h) in a program without hooks: an
// unmodified binary under the preloaded runtime (`seer record --watch` of a
// program not built with seer-cc). Nothing sees such a program's accesses, so
// the samples are taken by time, as a profiler takes them:
//
//  - a CPU-time timer per thread: a POSIX timer on the thread's own CPU clock
//    that sends SIGTRAP to that thread (SIGEV_THREAD_ID), made by each thread
//    as it starts (the main thread in SamplerStart, the others in
//    StartThread) and deleted as it ends; exec and fork drop them. Attached
//    to a running process (seer record -p), SamplerStart makes one for every
//    thread the process has, on that thread's clock (allowed within a thread
//    group), and a thread the runtime has not seen gets its ring at its first
//    tick when only the watches record (--sync=none). A table holds every
//    timer, so that a detach deletes them all (SamplerStop) and then waits
//    for the walks under way to end before the program's SIGTRAP disposition
//    comes back. The kernel checks CPU timers at its scheduler tick,
//    so a thread is interrupted at most once a tick (4 ms at HZ=250). Not a
//    perf event (a PERF_COUNT_SW_TASK_CLOCK event with `sigtrap` and
//    `inherit`, as the hardware watchpoints are): such an event is switched
//    in and out with its thread, which costs a service whose threads sleep
//    and wake for every request far more than the ticks do (docs/recording.md);
//  - the code it interrupted, in the program's own code (the executable's
//    text) only, decoded with Zydis: the instruction that ended at the
//    interrupted pc (a timer interrupt is taken when the instruction under
//    way retires, so a slow access is most often that one; decoded from its
//    function's start, from .eh_frame_hdr), else the next few in
//    straight-line code, up to the first plain access whose address the
//    registers in the signal's context still tell. Not sampled:
//    lock-prefixed instructions and `xchg` (atomic), string instructions,
//    accesses through %fs/%gs (thread-local) and to the thread's stack;
//  - else a walk to the next one: the handler sets the trap flag (EFLAGS.TF)
//    in the context it returns to, and the thread traps after each
//    instruction (SIGTRAP, TRAP_TRACE) until the instruction about to run is
//    such an access, its address read off the live registers. Code that
//    computes for a while between its loads (a request's arithmetic, a
//    hash) is where a tick almost never lands next to an access: without
//    the walk such a thread was hardly ever sampled. A tick outside the
//    executable's code (in libc, or in the runtime's interposers, where a
//    program that synchronises a lot spends most ticks when its
//    synchronisation is recorded) walks too: through the rest of that call,
//    decoded but never sampled, and back into the program's code. The walk
//    ends, with no sample, before a system call or an instruction that reads
//    or writes the flags on the stack (pushf, popf, iret: the trap flag would
//    leak into the program's data), and after kMaxSteps steps;
//  - then the same hold as a hook's sample (WatchHold), from the handler.
//
// A step costs a trap (1-2 us on bare metal, some 17 us in a Firecracker
// guest, measured here): the walk's time is charged to the budget, so that a
// thread takes its next sample, a walk or not, only once it has run
// 1000/budget_permille times as long (50 times at the default 2%) of its own
// CPU time (CLOCK_THREAD_CPUTIME_ID): a walk costs CPU, and a thread that
// sleeps between requests runs little in a wall-clock gap.
//
// The budget decides which ticks are samples: a thread is held at most once
// per WatchGlobals::min_gap_ns, and the timer ticks 32 times in that much
// CPU time, so that a tick that finds no access to sample costs only the
// signal (a few microseconds).
//
// Rule 2 of rt_state.h (a handler never writes to the ring of the code it
// interrupted) holds here although the handler writes to the interrupted
// thread's ring: a sample is taken only when the thread was interrupted in the
// executable's own code, which has no hooks (the runtime's appends are all in
// libseer_rt.so, and never call into the program's code halfway), and not in a
// signal handler of the program (signal_depth) or while attaching. A walk's
// steps through the runtime's code only decode, with the thread's state
// hidden from the interposers that Zydis's memset reaches.
//
// Only in libseer_rt.so (seer-cc builds sample through their hooks:
// access_sampler_none.cc has the archives' empty versions).
#pragma once

#include <cstdint>

#include "seer/ring_layout.h"

namespace seer::rt {

// Starts sampling as the watch settings in `h` ask; says what happened in
// h->sampler_*. Launched: the calling thread's timer, before the program
// makes another thread. `attached` (injected into a running process): a
// timer for every thread it has now.
void SamplerStart(ShmHeader* h, bool attached);

// The detach of an attached process: no tick from now on (every timer
// deleted), then waits a bounded time for the walks under way to take their
// last step. False when one did not (a thread may still have the trap flag
// set), or a deleted timer's tick may still come (a kernel before 6.13, a
// thread with SIGTRAP pending): the runtime's SIGTRAP handler must stay.
bool SamplerStop();

// The calling thread's timer, when the sampler is on: made as a thread
// starts (0, or the errno of a refusal), deleted as it ends.
int SamplerThreadStarts();
void SamplerThreadEnds();

// From the SIGTRAP handler: true when the trap (its timer's value) was the
// sampler's, which has then taken or skipped its sample, or started a walk.
bool SamplerTrap(uint64_t sig_data, void* context);

// From the SIGTRAP handler, for a single-step trap (TRAP_TRACE): true when
// the calling thread walks to an access (the step was the sampler's); the
// walk goes on, or ends with or without a sample.
bool SamplerStep(void* context);

// A forked child: the timers were not inherited; it samples nothing, and
// the table of the parent's timers is forgotten.
void SamplerForgetInChild();

}  // namespace seer::rt
