// Where a thread runs the handlers of signals (interpose_signal.cc): what
// orders a handler, recorded on a ring of its own, with the thread it
// interrupts, as ThreadSanitizer orders it by running it in that thread's
// context.
#pragma once

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

}  // namespace seer::rt
