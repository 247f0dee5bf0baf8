#include "daemon/retention.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>

namespace seer::daemon {

namespace fs = std::filesystem;

Status PrepareWindowDir(const std::string& dir) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) return Status::IOError("cannot create the window directory " + dir + ": " + ec.message());
  if (!fs::is_directory(dir)) return Status::InvalidArgument(dir + " is not a directory");
  // Windows hold what the target did (addresses, thread names, call sites):
  // only the service's user may read them.
  if (chmod(dir.c_str(), 0700) != 0)
    return Status::IOError("cannot make " + dir + " private (chmod 0700): " + std::strerror(errno));
  return Status::Ok();
}

Status EnforceRetention(const std::string& dir, const RetentionPolicy& policy, double now, const std::string& keep,
                        std::vector<std::string>* removed, WindowDirUsage* usage) {
  struct Window {
    std::string path;
    double mtime;
    uint64_t bytes;
  };
  std::vector<Window> windows;
  std::error_code ec;
  for (const fs::directory_entry& e : fs::directory_iterator(dir, ec)) {
    const std::string name = e.path().filename().string();
    if (name.rfind("window-", 0) != 0 || e.path().extension() != ".seer") continue;
    struct stat st;
    if (stat(e.path().c_str(), &st) != 0) continue;
    windows.push_back(
        {e.path().string(), st.st_mtim.tv_sec + st.st_mtim.tv_nsec * 1e-9, static_cast<uint64_t>(st.st_blocks) * 512});
  }
  if (ec) return Status::IOError("cannot list the window directory " + dir + ": " + ec.message());
  // Names carry the window's start in milliseconds: name order is age order.
  std::sort(windows.begin(), windows.end(), [](const Window& a, const Window& b) { return a.path < b.path; });
  uint64_t total = 0;
  for (const Window& w : windows) total += w.bytes;
  size_t count = windows.size();
  for (const Window& w : windows) {
    if (w.path == keep) continue;
    const bool too_many = policy.max_windows > 0 && count > policy.max_windows;
    const bool too_old = policy.max_age_s > 0 && now - w.mtime > policy.max_age_s;
    const bool too_big = policy.max_bytes > 0 && total > policy.max_bytes;
    if (!too_many && !too_old && !too_big) continue;
    if (unlink(w.path.c_str()) != 0 && errno != ENOENT)
      return Status::IOError("cannot remove the old window " + w.path + ": " + std::strerror(errno));
    removed->push_back(w.path);
    total -= w.bytes;
    count--;
  }
  usage->windows = count;
  usage->bytes = total;
  return Status::Ok();
}

}  // namespace seer::daemon
