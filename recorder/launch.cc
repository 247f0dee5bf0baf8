#include "recorder/launch.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

namespace seer::recorder {
namespace {

void CloseIfOpen(int* fd) {
  if (*fd >= 0) close(*fd);
  *fd = -1;
}

// The child's side, between fork and exec: waits for the go-ahead, prepares
// and execs; on failure reports errno through `exec_error_fd` (closed by a
// successful exec) and exits 127. Nothing here allocates.
[[noreturn]] void RunChild(const LaunchOptions& options, const char* path, char* const* args, int go_fd,
                           int exec_error_fd) {
  char byte = 0;
  ssize_t got;
  do {
    got = read(go_fd, &byte, 1);
  } while (got < 0 && errno == EINTR);
  if (got != 1) _exit(127);  // the parent gave up: end without exec
  // seer's own handlers (and a SIG_IGN it may have set) are not the program's.
  signal(SIGINT, SIG_DFL);
  signal(SIGTERM, SIG_DFL);
  if (options.in_child) options.in_child(byte);
  for (const auto& [name, value] : options.env) {
    if (value.empty())
      unsetenv(name.c_str());
    else
      setenv(name.c_str(), value.c_str(), 1);
  }
  if (options.stdout_fd >= 0) dup2(options.stdout_fd, 1);
  if (options.stderr_fd >= 0) dup2(options.stderr_fd, 2);
  if (options.stop_at_entry) TraceMeBeforeExec();
  execv(path, args);
  const int err = errno;
  ssize_t ignored = write(exec_error_fd, &err, sizeof err);
  (void)ignored;
  _exit(127);
}

}  // namespace

Status FindExecutable(const std::string& name, std::string* path) {
  if (name.empty()) return Status::InvalidArgument("no program to run");
  if (name.find('/') != std::string::npos) {
    if (access(name.c_str(), X_OK) != 0) return Status::NotFound("cannot run " + name + ": " + std::strerror(errno));
    *path = name;
    return Status::Ok();
  }
  const char* env = getenv("PATH");
  const std::string dirs = env != nullptr ? env : "/usr/local/bin:/usr/bin:/bin";
  size_t start = 0;
  while (start <= dirs.size()) {
    size_t end = dirs.find(':', start);
    if (end == std::string::npos) end = dirs.size();
    const std::string dir = end > start ? dirs.substr(start, end - start) : ".";
    const std::string candidate = dir + "/" + name;
    if (access(candidate.c_str(), X_OK) == 0) {
      *path = candidate;
      return Status::Ok();
    }
    start = end + 1;
  }
  return Status::NotFound("cannot run " + name + ": not found in PATH");
}

Launch::~Launch() {
  if (go_fd_ >= 0) Abandon();
  CloseIfOpen(&exec_error_fd_);
}

Status Launch::Start(const LaunchOptions& options) {
  if (options.argv.empty()) return Status::InvalidArgument("no program to run");
  program_ = options.argv[0];
  Status st = FindExecutable(program_, &executable_);
  if (!st.ok()) return st;
  int go[2], exec_error[2];
  if (pipe2(go, O_CLOEXEC) != 0) return Status::IOError(std::string("pipe: ") + std::strerror(errno));
  if (pipe2(exec_error, O_CLOEXEC) != 0) {
    const int err = errno;
    close(go[0]);
    close(go[1]);
    return Status::IOError(std::string("pipe: ") + std::strerror(err));
  }
  // Built before fork: the child must not allocate.
  std::vector<char*> args;
  for (const std::string& a : options.argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  const pid_t child = fork();
  if (child < 0) {
    const int err = errno;
    for (int fd : {go[0], go[1], exec_error[0], exec_error[1]}) close(fd);
    return Status::IOError(std::string("fork: ") + std::strerror(err));
  }
  if (child == 0) {
    close(go[1]);
    close(exec_error[0]);
    RunChild(options, executable_.c_str(), args.data(), go[0], exec_error[1]);
  }
  close(go[0]);
  close(exec_error[1]);
  pid_ = child;
  go_fd_ = go[1];
  exec_error_fd_ = exec_error[0];
  stop_at_entry_ = options.stop_at_entry;
  return Status::Ok();
}

Status Launch::Release(char byte) {
  if (go_fd_ < 0) return Status::Internal("Launch::Release without a child waiting");
  ssize_t sent;
  do {
    sent = write(go_fd_, &byte, 1);
  } while (sent < 0 && errno == EINTR);
  CloseIfOpen(&go_fd_);
  // Exec stops the traced child; run it to its entry point, where every library
  // is mapped and none of its code has run.
  Status st;
  if (stop_at_entry_) {
    int wait_status = 0;
    st = entry_stop_.RunToEntry(pid_, &wait_status);
  }
  int err = 0;
  ssize_t n;
  do {
    n = read(exec_error_fd_, &err, sizeof err);
  } while (n < 0 && errno == EINTR);
  CloseIfOpen(&exec_error_fd_);
  if (n == static_cast<ssize_t>(sizeof err)) {
    kill(pid_, SIGKILL);
    waitpid(pid_, nullptr, 0);
    return Status::NotFound("cannot run " + program_ + ": " + std::strerror(err));
  }
  return st;
}

Status Launch::DetachFromEntry() { return entry_stop_.Detach(); }

void Launch::Abandon() {
  if (go_fd_ < 0) return;
  CloseIfOpen(&go_fd_);  // the child reads no go-ahead and exits
  CloseIfOpen(&exec_error_fd_);
  waitpid(pid_, nullptr, 0);
}

}  // namespace seer::recorder
