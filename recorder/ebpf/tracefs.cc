// Finds or mounts tracefs; opens a tracepoint's perf event by its id there.
#include "recorder/ebpf/tracefs.h"

#include <linux/capability.h>
#include <linux/magic.h>
#include <linux/perf_event.h>
#include <sys/mount.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>

namespace seer::recorder {

namespace {

// tracefs's own mount options under systemd (sys-kernel-tracing.mount).
constexpr unsigned long kMountFlags = MS_NOSUID | MS_NODEV | MS_NOEXEC;

// The one event the futex programs need first: where it is, the others are.
bool HasSyscallEvents(const std::string& dir) {
  return access((dir + "/events/syscalls/sys_enter_futex/id").c_str(), R_OK) == 0;
}

bool IsFileSystem(const char* path, long magic) {
  struct statfs fs = {};
  return statfs(path, &fs) == 0 && static_cast<long>(fs.f_type) == magic;
}

bool HasCapSysAdmin() {
  __user_cap_header_struct header = {_LINUX_CAPABILITY_VERSION_3, 0};
  __user_cap_data_struct data[2] = {};
  if (syscall(SYS_capget, &header, data) != 0) return false;
  return (data[CAP_SYS_ADMIN / 32].effective >> (CAP_SYS_ADMIN % 32)) & 1u;
}

// "WHAT (why mount(2) said no, in the user's terms)".
std::string MountRefusal(const std::string& what, int err) {
  std::string why = std::string(strerror(err));
  if (err == EPERM || err == EACCES) {
    why += HasCapSysAdmin() ? ", although seer has CAP_SYS_ADMIN: a seccomp filter (container runtimes' default "
                              "profiles refuse mount), a security module, or a mount namespace a container's "
                              "user namespace owns"
                            : ": mounting needs CAP_SYS_ADMIN";
  } else if (err == ENOENT) {
    why += ": no such directory (sysfs is not mounted at /sys)";
  } else if (err == ENODEV) {
    why += ": the kernel has no such file system";
  }
  return what + " (" + why + ")";
}

}  // namespace

std::string Tracefs::Describe() const {
  if (mounted.empty()) return "found at " + dir;
  if (mounted == "debugfs")
    return std::string("mounted by seer: debugfs at ") + kDebugfsDir + " (left mounted), tracefs at " + dir;
  return "mounted by seer at " + dir + " (left mounted)";
}

Status FindOrMountTracefs(Tracefs* out) {
  *out = Tracefs();
  for (const char* dir : {kTracefsDir, kDebugfsTracingDir}) {
    if (HasSyscallEvents(dir)) {
      out->dir = dir;
      return Status::Ok();
    }
  }
  // A tracefs without the syscall events: the kernel has none to show
  // (CONFIG_FTRACE_SYSCALLS off), and another mount would not change that.
  for (const char* dir : {kTracefsDir, kDebugfsTracingDir}) {
    if (IsFileSystem(dir, TRACEFS_MAGIC))
      return Status::NotSupported(std::string("tracefs at ") + dir +
                                  " has no syscall trace events (events/syscalls/sys_enter_futex): the kernel was "
                                  "built without CONFIG_FTRACE_SYSCALLS");
  }

  if (mount("nodev", kTracefsDir, "tracefs", kMountFlags, nullptr) == 0) {
    out->dir = kTracefsDir;
    out->mounted = "tracefs";
    if (HasSyscallEvents(out->dir)) return Status::Ok();
    return Status::NotSupported(std::string("tracefs mounted by seer at ") + kTracefsDir +
                                " has no syscall trace events: the kernel was built without "
                                "CONFIG_FTRACE_SYSCALLS");
  }
  std::string refusals = "cannot mount " + MountRefusal(std::string("tracefs at ") + kTracefsDir, errno);

  // perf's fallback: debugfs, under which the kernel mounts tracefs at tracing/.
  if (!IsFileSystem(kDebugfsDir, DEBUGFS_MAGIC)) {
    if (mount("debugfs", kDebugfsDir, "debugfs", kMountFlags, nullptr) != 0) {
      const int err = errno;
      refusals += ", nor " + MountRefusal(std::string("debugfs at ") + kDebugfsDir, err);
      return err == EPERM || err == EACCES ? Status::Permission(refusals) : Status::IOError(refusals);
    }
    out->mounted = "debugfs";
  }
  out->dir = kDebugfsTracingDir;
  if (HasSyscallEvents(out->dir)) return Status::Ok();
  const std::string debugfs = out->mounted.empty() ? "debugfs" : "debugfs mounted by seer";
  return Status::IOError(refusals + ", and " + debugfs + " at " + kDebugfsDir + " shows no " + kDebugfsTracingDir +
                         "/events/syscalls/sys_enter_futex");
}

int OpenTracepointEvent(const std::string& tracefs_dir, const std::string& category, const std::string& name) {
  std::ifstream in(tracefs_dir + "/events/" + category + "/" + name + "/id");
  unsigned long long id = 0;
  if (!(in >> id)) {
    errno = ENOENT;
    return -1;
  }
  perf_event_attr attr = {};
  attr.type = PERF_TYPE_TRACEPOINT;
  attr.size = sizeof(attr);
  attr.config = id;
  // pid -1 on CPU 0: a BPF program on a tracepoint event runs wherever the
  // tracepoint fires, for every task (libbpf opens it the same way).
  return static_cast<int>(syscall(SYS_perf_event_open, &attr, -1, 0, -1, PERF_FLAG_FD_CLOEXEC));
}

}  // namespace seer::recorder
