// sleep and yield calls as scheduling points of `seer fuzz` (fuzz_scheduler.h,
// FuzzSleep). A thread that polls a plain flag with a sleep in between would
// otherwise hold the run token for ever while the thread that sets the flag
// waits for it. Without fuzzing (recording included) each is a plain forward:
// nothing is recorded for them.
#include <sched.h>
#include <time.h>
#include <unistd.h>

#include "runtime/fuzz_scheduler.h"
#include "runtime/real_function.h"
#include "runtime/rt_state.h"

namespace seer::rt {
namespace {

RealFunction<int (*)(const struct timespec*, struct timespec*)> real_nanosleep("nanosleep");
RealFunction<int (*)(clockid_t, int, const struct timespec*, struct timespec*)> real_clock_nanosleep("clock_nanosleep");
RealFunction<int (*)(useconds_t)> real_usleep("usleep");
RealFunction<int (*)()> real_sched_yield("sched_yield");

}  // namespace
}  // namespace seer::rt

using namespace seer::rt;

#pragma GCC visibility push(default)
extern "C" {

int nanosleep(const struct timespec* req, struct timespec* rem) {
  if (FuzzOn() && !FuzzSleep()) return 0;
  return real_nanosleep.get()(req, rem);
}
int clock_nanosleep(clockid_t clock, int flags, const struct timespec* req, struct timespec* rem) {
  if (FuzzOn() && !FuzzSleep()) return 0;
  return real_clock_nanosleep.get()(clock, flags, req, rem);
}
int usleep(useconds_t us) {
  if (FuzzOn() && !FuzzSleep()) return 0;
  return real_usleep.get()(us);
}
int sched_yield() noexcept {
  if (FuzzOn()) FuzzYield();
  return real_sched_yield.get()();
}

}  // extern "C"
#pragma GCC visibility pop
