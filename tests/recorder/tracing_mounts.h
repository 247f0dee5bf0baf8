// Test support: a private mount namespace in which tracefs and debugfs are
// mounted as the test says, whatever the machine had, and nothing the test or
// seer mounts in it reaches the machine (recorder/ebpf/tracefs.h). Needs root
// (CAP_SYS_ADMIN).
#pragma once

#include <string>
#include <vector>

#include "seer/status.h"

namespace seer::testing {

enum class TracingState {
  kNone,     // neither tracefs nor debugfs mounted: a fresh machine
  kTracefs,  // tracefs at /sys/kernel/tracing, as systemd mounts it
  kDebugfs,  // debugfs at /sys/kernel/debug only (tracefs under it at tracing/)
};

// "none", "tracefs", "debugfs" -> the state; false for anything else.
bool ParseTracingState(const std::string& name, TracingState* state);

// Moves the calling process, which must have one thread, into a new mount
// namespace with "/" made recursively private (no mount or unmount in it
// propagates to the machine's), unmounts every tracefs and debugfs there, then
// mounts what `state` asks for.
Status EnterTracingMountNamespace(TracingState state);

// The tracefs and debugfs mounts of the calling process's namespace, as
// "TYPE MOUNTPOINT" in /proc/self/mountinfo's order.
std::vector<std::string> TracingMounts();

// EnterTracingMountNamespace for its lifetime: the destructor returns the
// process (one thread again) to the namespace and directory it left; the
// private namespace and its mounts go away with it.
class ScopedTracingMountNamespace {
 public:
  explicit ScopedTracingMountNamespace(TracingState state);
  ScopedTracingMountNamespace(const ScopedTracingMountNamespace&) = delete;
  ScopedTracingMountNamespace& operator=(const ScopedTracingMountNamespace&) = delete;
  ~ScopedTracingMountNamespace();

  const Status& status() const { return status_; }

 private:
  int home_ns_ = -1;   // the namespace left
  int home_cwd_ = -1;  // setns puts the process at the namespace's root
  Status status_;
};

}  // namespace seer::testing
