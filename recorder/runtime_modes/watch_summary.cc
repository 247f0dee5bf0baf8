#include "recorder/runtime_modes/watch_summary.h"

#include <fmt/format.h>

#include <cstring>

namespace seer::recorder {
namespace {

// Why the hardware watchpoints are not used (ShmHeader::watch_errno).
std::string NoHardware(int err) {
  if (err == -1)
    return "the machine accepted the debug registers but never fired them (a hypervisor without debug-register "
           "support)";
  std::string why = fmt::format("perf_event_open refused a hardware breakpoint ({})", std::strerror(err));
  if (err == EACCES || err == EPERM) why += ": perf_event_paranoid above 2, or a seccomp filter or container";
  if (err == ENOSPC) why += ": a debugger or the program holds every debug register";
  if (err == ENOENT || err == EOPNOTSUPP) why += ": no hardware breakpoints on this machine";
  return why;
}

}  // namespace

std::string WatchSummary(const rt::ShmHeader& shm, const InprocOptions& options) {
  if (shm.owner_pid.load(std::memory_order_relaxed) == 0) return "no watches: the runtime never started";
  const bool hardware = shm.watch_hardware.load(std::memory_order_relaxed) != 0;
  std::string kinds = hardware ? "hardware and the hooks' software watchpoints"
                               : "the hooks' software watchpoints only (no hardware: " +
                                     NoHardware(shm.watch_errno.load(std::memory_order_relaxed)) + ")";
  return fmt::format(
      "{} watches at once, {}; samples held {} us within {:.1f}% of each thread's time: {} samples, {} races "
      "caught, {} skipped (every watch armed)",
      shm.watch_slots.load(std::memory_order_relaxed), kinds, options.watch_delay_us,
      options.watch_budget_permille / 10.0, shm.watch_samples.load(std::memory_order_relaxed),
      shm.watch_caught.load(std::memory_order_relaxed), shm.watch_busy.load(std::memory_order_relaxed));
}

}  // namespace seer::recorder
