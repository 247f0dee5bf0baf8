// A private mount namespace with tracefs and debugfs as a test wants them.
#include "tests/recorder/tracing_mounts.h"

#include <fcntl.h>
#include <sched.h>
#include <sys/mount.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

namespace seer::testing {

namespace {

// One /proc/self/mountinfo line: "ID PARENT MAJ:MIN ROOT MOUNTPOINT OPTIONS
// [OPTIONAL...] - TYPE SOURCE SUPER_OPTIONS"; spaces in paths are octal-escaped.
bool ParseMountinfoLine(const std::string& line, std::string* mount_point, std::string* type) {
  std::istringstream in(line);
  std::string field;
  for (int i = 0; i < 5; ++i)
    if (!(in >> field)) return false;
  *mount_point = field;
  while (in >> field)
    if (field == "-") return static_cast<bool>(in >> *type);
  return false;
}

std::string Errno(const std::string& what) { return what + ": " + strerror(errno); }

}  // namespace

bool ParseTracingState(const std::string& name, TracingState* state) {
  if (name == "none")
    *state = TracingState::kNone;
  else if (name == "tracefs")
    *state = TracingState::kTracefs;
  else if (name == "debugfs")
    *state = TracingState::kDebugfs;
  else
    return false;
  return true;
}

std::vector<std::string> TracingMounts() {
  std::vector<std::string> out;
  std::ifstream in("/proc/self/mountinfo");
  std::string line, mount_point, type;
  while (std::getline(in, line))
    if (ParseMountinfoLine(line, &mount_point, &type) && (type == "tracefs" || type == "debugfs"))
      out.push_back(type + " " + mount_point);
  return out;
}

Status EnterTracingMountNamespace(TracingState state) {
  if (unshare(CLONE_NEWNS) != 0) return Status::IOError(Errno("unshare(CLONE_NEWNS)"));
  if (mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0)
    return Status::IOError(Errno("making / private"));
  // Children before parents (tracefs under debugfs): the last listed first.
  // Each pass may reveal mounts stacked below: repeat until none is left.
  for (int pass = 0; pass < 8; ++pass) {
    std::vector<std::string> mounts = TracingMounts();
    if (mounts.empty()) break;
    for (auto it = mounts.rbegin(); it != mounts.rend(); ++it) {
      const std::string path = it->substr(it->find(' ') + 1);
      if (umount2(path.c_str(), MNT_DETACH) != 0 && errno != EINVAL && errno != ENOENT)
        return Status::IOError(Errno("unmounting " + *it));
    }
  }
  if (!TracingMounts().empty()) return Status::IOError("tracefs or debugfs still mounted in the private namespace");
  constexpr unsigned long kFlags = MS_NOSUID | MS_NODEV | MS_NOEXEC;
  if (state == TracingState::kTracefs && mount("nodev", "/sys/kernel/tracing", "tracefs", kFlags, nullptr) != 0)
    return Status::IOError(Errno("mounting tracefs at /sys/kernel/tracing"));
  if (state == TracingState::kDebugfs && mount("debugfs", "/sys/kernel/debug", "debugfs", kFlags, nullptr) != 0)
    return Status::IOError(Errno("mounting debugfs at /sys/kernel/debug"));
  return Status::Ok();
}

ScopedTracingMountNamespace::ScopedTracingMountNamespace(TracingState state) {
  home_ns_ = open("/proc/self/ns/mnt", O_RDONLY | O_CLOEXEC);
  home_cwd_ = open(".", O_PATH | O_DIRECTORY | O_CLOEXEC);
  if (home_ns_ < 0 || home_cwd_ < 0) {
    status_ = Status::IOError(Errno("opening the current mount namespace and directory"));
    return;
  }
  status_ = EnterTracingMountNamespace(state);
}

ScopedTracingMountNamespace::~ScopedTracingMountNamespace() {
  if (home_ns_ >= 0 && setns(home_ns_, CLONE_NEWNS) != 0) perror("returning to the mount namespace");
  if (home_cwd_ >= 0 && fchdir(home_cwd_) != 0) perror("returning to the directory");
  if (home_ns_ >= 0) close(home_ns_);
  if (home_cwd_ >= 0) close(home_cwd_);
}

}  // namespace seer::testing
