// Races caught in the act (seer record --watch): sampled accesses covered by a
// watchpoint while their thread is held, after DataCollider (Erickson et al.,
// OSDI 2010) and GWP-TSan. docs/recording.md, "Watchpoints".
//
// Three ways to see the other thread, all used at once:
//  - software watchpoints: in a seer-cc build every access the hooks see is
//    checked against the armed watches (one load while none is armed), which
//    names the other thread, its pc and whether it read or wrote;
//  - hardware watchpoints, below, for the code without hooks (libraries, and
//    unmodified programs), where the machine delivers them (WatchStart checks:
//    some hypervisors never fire a debug register);
//  - the value: the watched bytes read before and after the hold. A change
//    nobody was seen making is still a write concurrent with the sampled access
//    (the held thread did nothing in between), by a thread not named.
//
// Who takes the samples: the hooks' countdown in a seer-cc build; in a
// program without hooks (the preloaded runtime), a CPU-time timer and the
// instruction it interrupted (access_sampler.h).
//
// The process opens up to four PERF_TYPE_BREAKPOINT events on itself when the
// runtime starts, before it makes a thread: `inherit` and `inherit_thread` give
// every thread it creates later the same events, `sigtrap` makes a hit a
// synchronous SIGTRAP in the thread that made the access, `remove_on_exec`
// drops them at exec. Since Linux 5.13 an ioctl on the parent event (modify,
// enable, disable) reaches all those copies at once, so one slot is one
// watchpoint on every thread. A sampled access (WatchSample) takes a free slot,
// points it at the accessed bytes (writes only for a sampled read, reads and
// writes for a sampled write), holds its thread for the delay, disarms, and
// writes a kWatchSample and a kWatchHit to its own ring when another thread
// touched the bytes meanwhile, or the value changed under it.
//
// Ground rules: the SIGTRAP handler (WatchTrap) only reads and stores atomics
// of its slot and makes one ioctl: it writes to no ring (rt_state.h, rule 2),
// the sampled thread writes both events. Slots are claimed with a CAS; a
// thread holds at most one, and never while a signal handler of its own could
// sample (signal_depth > 0: no sampling in handlers).
#pragma once

#include <signal.h>

#include <atomic>
#include <cstdint>

#include "runtime/rt_state.h"

namespace seer::rt {

struct WatchGlobals {
  bool on = false;                 // slots are open: the hooks count down
  bool hardware = false;           // the hardware watchpoints fire on this machine (a self-test at start)
  std::atomic<uint32_t> armed{0};  // watches armed now: the hooks check their accesses while non-zero
  uint32_t period = 0;             // accesses between a thread's first samples (the hooks' countdown)
  uint32_t delay_us = 0;           // how long a sampled thread is held
  uint64_t min_gap_ns = 0;         // the budget: a thread is held at most once in this time
  uint32_t budget_permille = 0;    // the share of a thread's time the samples may take, in thousandths
  uint32_t slots = 0;              // watches that can be armed at once (at most kMaxWatchSlots)
  ShmHeader* shm = nullptr;        // where the counts go
};
extern WatchGlobals g_watch;

inline constexpr uint32_t kMaxWatchSlots = 4;  // x86-64 has four debug address registers

// Turns the watches on, from the runtime's start (before the program makes a
// thread), as the shared area's watch_period asks: the software slots always,
// the hardware ones (and the SIGTRAP handler) where the machine delivers them.
// What it got, and the counts, go to the area (ShmHeader::watch_*).
// `attached` (injected into a running process, seer record -p): no hardware
// slots, which would reach only the threads created after them (`inherit`),
// and the sampler times every thread the process has (access_sampler.h).
bool WatchStart(ShmHeader* h, bool attached);

// The detach of an attached process (attach_inject.cc): leaves nothing of the
// watches behind. No sample from now on, every timer deleted, the hardware
// slots closed once no thread holds one, and SIGTRAP's disposition the
// program's again once no walk is under way. What it managed goes to
// ShmHeader::watch_detach.
void WatchStop();

// A forked child: its copies of the slots' descriptors name the parent's
// watchpoints, which the child does not have (inherit_thread): no sampling.
void WatchForgetInChild();

// The accesses left before the calling thread's next sample; the thread's
// period (adapted to the budget) and the time of its last sample.
extern __thread int32_t tls_watch_countdown;
extern __thread uint32_t tls_watch_period;
extern __thread uint64_t tls_watch_last_ns;

// A sample of the access of `size` bytes at `addr` (from the hooks): holds the
// thread with a watchpoint on those bytes. Does nothing when no slot is free.
SEER_RT_NOINLINE void WatchSample(uint64_t addr, uint64_t size, bool write, uint64_t pc);

// The sample itself, once taken (by WatchSample, or by the CPU-time sampler of
// a program without hooks: access_sampler.h): claims a free slot for the
// bytes, holds the thread, compares, and writes the caught race to `ts`'s
// ring. `careful`: the address was decoded from an instruction, not given by
// a hook, so the bytes are read with process_vm_readv (a wrong decode costs
// the sample, never the program).
void WatchHold(ThreadState* ts, uint64_t addr, uint64_t size, bool write, uint64_t pc, bool careful);

// A hook's access while a watch is armed: a hit when it overlaps a watch of
// another thread and one of the two accesses writes.
SEER_RT_NOINLINE void WatchCheck(uint64_t addr, uint64_t size, bool write, uint64_t pc);

// What the hooks do per access while watchpoints are on: the software
// watchpoints' check (one load while nothing is armed) and the countdown.
SEER_RT_INLINE void WatchCount(uint64_t addr, uint64_t size, bool write, uint64_t pc) {
  if (__builtin_expect(!g_watch.on, 1)) return;
  if (__builtin_expect(g_watch.armed.load(std::memory_order_relaxed) != 0, 0)) WatchCheck(addr, size, write, pc);
  if (--tls_watch_countdown <= 0) WatchSample(addr, size, write, pc);
}

// The SIGTRAP handler's first step: true when the trap was one of the slots'
// or the access sampler's (then it has been handled), false when it belongs
// to the program or a debugger.
bool WatchTrap(int sig, siginfo_t* info, void* context);

}  // namespace seer::rt
