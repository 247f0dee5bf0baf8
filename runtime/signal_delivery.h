// Where a thread runs the handlers of signals (interpose_signal.cc): what
// orders a handler, recorded on a ring of its own, with the thread it
// interrupts, as ThreadSanitizer orders it by running it in that thread's
// context.
#pragma once

#include <atomic>
#include <cstdint>

#include "runtime/rt_state.h"

namespace seer::rt {

// Around a call during which the calling thread may run signal handlers: one
// that sends the thread a signal, unblocks signals, waits for them, sleeps, or
// has the kernel send one later (a timer). What the thread did before the call
// happens before those handlers (its "raised" object, signalled before the
// call), and they before what it does after (its "handled" object, waited on
// after if a handler ran: WaitForHandlers, rt_state.h). Records nothing until
// the program has installed a handler (the runtime's own for fatal signals is
// not one), nor attached by injection (no handler runs behind the trampoline
// then), nor in the eBPF modes.
class DeliveryPoint {
 public:
  explicit DeliveryPoint(uint64_t pc);
  ~DeliveryPoint();
  DeliveryPoint(const DeliveryPoint&) = delete;
  DeliveryPoint& operator=(const DeliveryPoint&) = delete;

 private:
  uint64_t pc_;
  int64_t ring_ = -1;  // the ring whose "raised" object was signalled
};

// Around the system call of an interposer that may block (a read, a write,
// an accept, a poll...), after its records before the call and before its
// records after: a handler that runs meanwhile finds no append of the thread
// half-way, so it records into the thread's own ring, in program order
// (HandlerScope, interpose_signal.cc), ordered with what the thread did before
// the call and does after it, as ThreadSanitizer runs a handler at once in a
// blocking call. A handler of a signal that interrupts the thread anywhere
// else goes to the thread's signal ring. `ts` may be null (not recording).
class BlockingCall {
 public:
  explicit BlockingCall(ThreadState* ts) : ts_(ts) {
    if (ts_ == nullptr) return;
    was_ = ts_->in_blocking_call;  // a handler's own blocking call, inside one of the thread's
    std::atomic_signal_fence(std::memory_order_seq_cst);
    ts_->in_blocking_call = true;
    std::atomic_signal_fence(std::memory_order_seq_cst);
  }
  ~BlockingCall() {
    if (ts_ == nullptr) return;
    std::atomic_signal_fence(std::memory_order_seq_cst);
    ts_->in_blocking_call = was_;
    std::atomic_signal_fence(std::memory_order_seq_cst);
  }
  BlockingCall(const BlockingCall&) = delete;
  BlockingCall& operator=(const BlockingCall&) = delete;

 private:
  ThreadState* ts_;
  bool was_ = false;
};

}  // namespace seer::rt
