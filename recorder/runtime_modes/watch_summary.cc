#include "recorder/runtime_modes/watch_summary.h"

#include <fmt/format.h>

#include <cstring>

namespace seer::recorder {
namespace {

// Why the hardware watchpoints are not used (ShmHeader::watch_errno).
std::string NoHardware(int err) {
  if (err == rt::kWatchNeverFired)
    return "the machine accepted the debug registers but never fired them (a hypervisor without debug-register "
           "support)";
  if (err == rt::kWatchAttached) return "a running process's would reach only the threads it makes after the attach";
  if (err == rt::kWatchTurnedOff) return "turned off by SEER_WATCH_HARDWARE=0";
  std::string why = fmt::format("perf_event_open refused a hardware breakpoint ({})", std::strerror(err));
  if (err == EACCES || err == EPERM) why += ": perf_event_paranoid above 2, or a seccomp filter or container";
  if (err == ENOSPC) why += ": a debugger or the program holds every debug register";
  if (err == ENOENT || err == EOPNOTSUPP) why += ": no hardware breakpoints on this machine";
  return why;
}

// How the samples were taken in a program without hooks (the runtime's
// access sampler), or "" for a seer-cc build (its hooks take them).
std::string Sampler(const rt::ShmHeader& shm) {
  const uint32_t period_us = shm.sampler_period_us.load(std::memory_order_relaxed);
  const int err = shm.sampler_errno.load(std::memory_order_relaxed);
  if (period_us == 0 && err == 0) return "";
  if (period_us == 0) {
    std::string why = err == ENOEXEC ? std::string("the executable's code was not found")
                                     : fmt::format("timer_create refused a CPU-time timer ({})", std::strerror(err));
    if (err == EACCES || err == EPERM) why += ": a seccomp filter or container";
    return "no samples: " + why + "; ";
  }
  return fmt::format(
      "sampled by a CPU-time timer every {:.2f} ms of a thread's time ({} ticks, {} found no plain "
      "access of the program's own code; {} walks to the next access found {} in {} single steps); ",
      period_us / 1000.0, shm.sampler_ticks.load(std::memory_order_relaxed),
      shm.sampler_misses.load(std::memory_order_relaxed), shm.sampler_walks.load(std::memory_order_relaxed),
      shm.sampler_walk_samples.load(std::memory_order_relaxed), shm.sampler_steps.load(std::memory_order_relaxed));
}

}  // namespace

std::string WatchSummary(const rt::ShmHeader& shm, const InprocOptions& options) {
  if (shm.owner_pid.load(std::memory_order_relaxed) == 0) return "no watches: the runtime never started";
  const bool hardware = shm.watch_hardware.load(std::memory_order_relaxed) != 0;
  const std::string sampler = Sampler(shm);
  // A program without hooks (the sampler's) has no software watchpoints: only
  // the value tells a write made during the hold.
  const std::string others = sampler.empty() ? "the hooks' software watchpoints" : "the value compared";
  std::string kinds = hardware ? "hardware watchpoints and " + others
                               : others + " only (no hardware watchpoints: " +
                                     NoHardware(shm.watch_errno.load(std::memory_order_relaxed)) + ")";
  std::string summary = fmt::format(
      "{}{} watches at once, {}; samples held {} us within {:.1f}% of each thread's time: {} samples, {} races "
      "caught, {} skipped (every watch armed)",
      sampler, shm.watch_slots.load(std::memory_order_relaxed), kinds, options.watch_delay_us,
      options.watch_budget_permille / 10.0, shm.watch_samples.load(std::memory_order_relaxed),
      shm.watch_caught.load(std::memory_order_relaxed), shm.watch_busy.load(std::memory_order_relaxed));
  if (const uint32_t untimed = shm.sampler_untimed.load(std::memory_order_relaxed); untimed != 0)
    summary += fmt::format("; {} threads got no timer (not sampled)", untimed);
  switch (shm.watch_detach.load(std::memory_order_acquire)) {
    case rt::kWatchDetachClean: summary += "; detached: every timer deleted, SIGTRAP the program's again"; break;
    case rt::kWatchDetachHandlerKept:
      summary +=
          "; detached: every timer deleted, but seer's SIGTRAP handler stays installed (a thread was still "
          "single-stepping to an access; the handler now passes every trap to the program's)";
      break;
    default: break;
  }
  return summary;
}

}  // namespace seer::recorder
