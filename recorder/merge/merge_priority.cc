#include "recorder/merge/merge_priority.h"

#include <dirent.h>
#include <sched.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cstdlib>

namespace seer::recorder {

std::set<pid_t> Tasks() {
  std::set<pid_t> tids;
  if (DIR* dir = opendir("/proc/self/task")) {
    while (const dirent* entry = readdir(dir))
      if (const long tid = std::strtol(entry->d_name, nullptr, 10); tid > 0) tids.insert(static_cast<pid_t>(tid));
    closedir(dir);
  }
  return tids;
}

void SetThreadPriority(pid_t tid, bool idle, int idle_nice) {
  sched_param param = {};
  const bool sched_idle = idle && idle_nice < 0;
  sched_setscheduler(tid, sched_idle ? SCHED_IDLE : SCHED_OTHER, &param);
  if (!sched_idle) setpriority(PRIO_PROCESS, static_cast<id_t>(tid), idle ? idle_nice : 0);
}

void SetDrainPriority(bool idle, int idle_nice, const std::set<pid_t>& others) {
  const pid_t self = gettid();
  for (const pid_t tid : Tasks()) {
    if (tid == self || others.count(tid) != 0) continue;
    SetThreadPriority(tid, idle, idle_nice);
  }
}

}  // namespace seer::recorder
