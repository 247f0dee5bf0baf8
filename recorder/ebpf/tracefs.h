// Where the kernel's tracing file system (tracefs) is, mounted where it is
// missing. The per-syscall tracepoints (syscalls:sys_enter_futex, ...) can be
// attached only by the id tracefs shows for them; without it the system-call
// programs fall back to the raw sys_enter/sys_exit tracepoints, which cost
// every system call on the machine about four times as much
// (recorder/ebpf/sync_probes.h, docs/recording.md).
#pragma once

#include <string>

#include "seer/status.h"

namespace seer::recorder {

// The kernel's places, as perf and libbpf know them.
inline constexpr const char* kTracefsDir = "/sys/kernel/tracing";
inline constexpr const char* kDebugfsDir = "/sys/kernel/debug";
inline constexpr const char* kDebugfsTracingDir = "/sys/kernel/debug/tracing";

struct Tracefs {
  std::string dir;  // the directory holding events/: kTracefsDir or kDebugfsTracingDir
  // What seer mounted to get it: "tracefs" (at kTracefsDir) or "debugfs" (at
  // kDebugfsDir); empty when it was there already.
  std::string mounted;
  // "found at DIR", "mounted by seer at DIR (left mounted)": the trace's record.tracefs.
  std::string Describe() const;
};

// Finds a tracefs that has the syscall trace events: at kTracefsDir, else
// under debugfs (kDebugfsTracingDir, where the kernel mounts tracefs itself on
// first use). Where neither is there, mounts tracefs at kTracefsDir, else
// debugfs at kDebugfsDir (as perf does), and leaves it mounted: that is where
// the kernel documents it and a systemd boot mounts it, other tracers look for
// it there, and unmounting it after the attach would pull it from under
// whoever began to use it meanwhile (another seer, the service, perf).
//
// Errors say why there is none: both mounts refused (EPERM without
// CAP_SYS_ADMIN; with it, a seccomp filter, a security module or a container's
// user namespace), or a kernel without syscall trace events.
Status FindOrMountTracefs(Tracefs* out);

// Opens the perf event of tracepoint `category`:`name` by its id under
// `tracefs_dir`/events/ (on every CPU, for any task), for
// bpf_program__attach_perf_event. Returns the descriptor, or -1 with errno set
// (ENOENT: no such tracepoint; EACCES/EPERM: perf_event_open refused).
//
// seer does not let libbpf find the id: libbpf 1.1 reads it under
// /sys/kernel/debug/tracing whenever that path exists and under
// /sys/kernel/tracing otherwise, deciding once per process, which need not be
// the tracefs found or mounted here (debugfs mounted without its tracing/
// usable, or the mounts changed between two recordings of the service).
int OpenTracepointEvent(const std::string& tracefs_dir, const std::string& category, const std::string& name);

}  // namespace seer::recorder
