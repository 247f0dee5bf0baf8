// /proc/PID/maps and /proc/PID/task: which files a process maps where, and its
// threads. The recorder uses it to find the libc to probe, to build the module
// map, and to tell libc-internal call sites from the program's own.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string>
#include <vector>

#include "seer/status.h"
#include "seer/trace.h"

namespace seer::recorder {

struct Mapping {
  uint64_t start = 0;
  uint64_t end = 0;
  uint64_t offset = 0;  // file offset of `start`
  uint64_t inode = 0;   // 0 for anonymous mappings
  bool executable = false;
  std::string path;  // empty for anonymous mappings
};

Status ReadProcMaps(pid_t pid, std::vector<Mapping>* out);

// The executable file mappings, one ModuleInfo each (with its build-id).
std::vector<ModuleInfo> ModulesFromMaps(const std::vector<Mapping>& maps);

// The first mapping of a file whose base name starts with `prefix` ("libc.so").
const Mapping* FindMappedFile(const std::vector<Mapping>& maps, const std::string& prefix);

// Kernel tids of the process's threads, the main thread first.
Status ListThreads(pid_t pid, std::vector<pid_t>* tids);

// /proc/PID/task/TID/comm without the newline; empty when the thread is gone.
std::string ThreadName(pid_t pid, pid_t tid);

// /proc/PID/cmdline, its arguments joined by spaces; empty when the process is gone.
std::string ProcessCommandLine(pid_t pid);

// The file /proc/PID/exe names; empty when the process is gone (or a kernel thread).
std::string ProcessExecutable(pid_t pid);

// The processes whose parent is `pid` (/proc/PID/task/*/children), sorted.
std::vector<pid_t> ChildProcesses(pid_t pid);

// The parent of process `pid` (/proc/PID/stat), 0 when it cannot be read.
pid_t ParentProcess(pid_t pid);

}  // namespace seer::recorder
