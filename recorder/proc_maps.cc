// Parsers for /proc/PID/maps and /proc/PID/task.
#include "recorder/proc_maps.h"

#include <dirent.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <set>
#include <sstream>

#include "store/build_id.h"

namespace seer::recorder {

Status ReadProcMaps(pid_t pid, std::vector<Mapping>* out) {
  out->clear();
  std::string path = "/proc/" + std::to_string(pid) + "/maps";
  FILE* f = fopen(path.c_str(), "re");
  if (!f) return Status::NotFound(path + ": " + strerror(errno));
  char line[4096];
  while (fgets(line, sizeof(line), f)) {
    Mapping m;
    char perms[8] = {};
    int name_pos = 0;
    if (sscanf(line, "%" SCNx64 "-%" SCNx64 " %7s %" SCNx64 " %*s %" SCNu64 " %n", &m.start, &m.end, perms, &m.offset,
               &m.inode, &name_pos) < 5)
      continue;
    m.executable = perms[2] == 'x';
    std::string name = name_pos > 0 ? std::string(line + name_pos) : std::string();
    while (!name.empty() && (name.back() == '\n' || name.back() == ' ')) name.pop_back();
    if (!name.empty() && name[0] == '/') m.path = name;
    out->push_back(std::move(m));
  }
  fclose(f);
  return Status::Ok();
}

std::vector<ModuleInfo> ModulesFromMaps(const std::vector<Mapping>& maps) {
  std::vector<ModuleInfo> modules;
  for (const auto& m : maps) {
    if (!m.executable || m.path.empty()) continue;
    ModuleInfo info;
    info.path = m.path;
    info.base = m.start;
    info.size = m.end - m.start;
    info.file_offset = m.offset;
    // A module without a readable build-id is still worth its path and addresses.
    info.build_id = store::ReadBuildId(m.path);
    modules.push_back(std::move(info));
  }
  return modules;
}

const Mapping* FindMappedFile(const std::vector<Mapping>& maps, const std::string& prefix) {
  for (const auto& m : maps) {
    auto slash = m.path.rfind('/');
    std::string base = slash == std::string::npos ? m.path : m.path.substr(slash + 1);
    if (base.compare(0, prefix.size(), prefix) == 0) return &m;
  }
  return nullptr;
}

Status ListThreads(pid_t pid, std::vector<pid_t>* tids) {
  tids->clear();
  std::string path = "/proc/" + std::to_string(pid) + "/task";
  DIR* dir = opendir(path.c_str());
  if (!dir) return Status::NotFound(path + ": " + strerror(errno));
  while (dirent* d = readdir(dir)) {
    if (d->d_name[0] < '0' || d->d_name[0] > '9') continue;
    tids->push_back(static_cast<pid_t>(atol(d->d_name)));
  }
  closedir(dir);
  std::sort(tids->begin(), tids->end(), [pid](pid_t a, pid_t b) {
    if ((a == pid) != (b == pid)) return a == pid;
    return a < b;
  });
  return Status::Ok();
}

std::string ThreadName(pid_t pid, pid_t tid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/task/" + std::to_string(tid) + "/comm");
  std::string name;
  std::getline(in, name);
  return name;
}

std::string ProcessCommandLine(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/cmdline", std::ios::binary);
  std::string line((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  while (!line.empty() && line.back() == '\0') line.pop_back();
  std::replace(line.begin(), line.end(), '\0', ' ');
  return line;
}

std::string ProcessExecutable(pid_t pid) {
  char target[4096];
  const ssize_t n = readlink(("/proc/" + std::to_string(pid) + "/exe").c_str(), target, sizeof target - 1);
  return n > 0 ? std::string(target, static_cast<size_t>(n)) : std::string();
}

std::vector<pid_t> ChildProcesses(pid_t pid) {
  std::vector<pid_t> tids, children;
  if (!ListThreads(pid, &tids).ok()) return children;
  for (pid_t tid : tids) {
    std::ifstream in("/proc/" + std::to_string(pid) + "/task/" + std::to_string(tid) + "/children");
    for (long child; in >> child;) children.push_back(static_cast<pid_t>(child));
  }
  std::sort(children.begin(), children.end());
  children.erase(std::unique(children.begin(), children.end()), children.end());
  return children;
}

pid_t ParentProcess(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  std::getline(in, line);
  // "PID (COMM) STATE PPID ...": COMM may hold spaces and parentheses.
  const size_t close = line.rfind(')');
  if (close == std::string::npos) return 0;
  std::istringstream rest(line.substr(close + 1));
  std::string state;
  long ppid = 0;
  rest >> state >> ppid;
  return static_cast<pid_t>(ppid);
}

}  // namespace seer::recorder
