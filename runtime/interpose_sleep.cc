// sleep and yield calls as scheduling points of `seer fuzz` (fuzz_scheduler.h,
// FuzzSleep). A thread that polls a plain flag with a sleep in between would
// otherwise hold the run token for ever while the thread that sets the flag
// waits for it. And a sleep as a point where the thread runs the handlers of
// signals sent to it (signal_delivery.h: `while (!stop) sleep(1);`, with a
// handler that sets `stop`, is a common way to wait for one); nothing else is
// recorded for them. The runtime's own sleeps go to libc (SleepUnrecorded).
#include <sched.h>
#include <time.h>
#include <unistd.h>

#include "runtime/fuzz_scheduler.h"
#include "runtime/real_function.h"
#include "runtime/rt_state.h"
#include "runtime/signal_delivery.h"

namespace seer::rt {
namespace {

RealFunction<int (*)(const struct timespec*, struct timespec*)> real_nanosleep("nanosleep");
RealFunction<int (*)(clockid_t, int, const struct timespec*, struct timespec*)> real_clock_nanosleep("clock_nanosleep");
RealFunction<int (*)(useconds_t)> real_usleep("usleep");
RealFunction<unsigned (*)(unsigned)> real_sleep("sleep");
RealFunction<int (*)()> real_sched_yield("sched_yield");

}  // namespace

int SleepUnrecorded(const struct timespec* req, struct timespec* rem) { return real_nanosleep.get()(req, rem); }

}  // namespace seer::rt

using namespace seer::rt;

#pragma GCC visibility push(default)
extern "C" {

int nanosleep(const struct timespec* req, struct timespec* rem) {
  if (FuzzOn() && !FuzzSleep()) return 0;
  DeliveryPoint point(SEER_RT_CALLER_PC());
  return real_nanosleep.get()(req, rem);
}
int clock_nanosleep(clockid_t clock, int flags, const struct timespec* req, struct timespec* rem) {
  if (FuzzOn() && !FuzzSleep()) return 0;
  DeliveryPoint point(SEER_RT_CALLER_PC());
  return real_clock_nanosleep.get()(clock, flags, req, rem);
}
int usleep(useconds_t us) {
  if (FuzzOn() && !FuzzSleep()) return 0;
  DeliveryPoint point(SEER_RT_CALLER_PC());
  return real_usleep.get()(us);
}
// glibc's sleep() calls its own nanosleep, not the interposer: a delivery
// point of its own (not a scheduling point: FuzzSleep never saw it).
unsigned sleep(unsigned seconds) {
  DeliveryPoint point(SEER_RT_CALLER_PC());
  return real_sleep.get()(seconds);
}
int sched_yield() noexcept {
  if (FuzzOn()) FuzzYield();
  return real_sched_yield.get()();
}

}  // extern "C"
#pragma GCC visibility pop
