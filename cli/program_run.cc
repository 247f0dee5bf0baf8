#include "cli/program_run.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>

#include <fmt/format.h>

namespace seer::cli {

Status RunProgram(const std::vector<std::string>& argv, const std::vector<std::pair<std::string, std::string>>& env,
                  double timeout_s, ProgramResult* result) {
  *result = ProgramResult();
  if (argv.empty()) return Status::InvalidArgument("no program to run");
  int pipe_fds[2];
  if (pipe2(pipe_fds, O_CLOEXEC) != 0) return Status::IOError(fmt::format("pipe: {}", std::strerror(errno)));
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  const pid_t pid = fork();
  if (pid < 0) return Status::IOError(fmt::format("fork: {}", std::strerror(errno)));
  if (pid == 0) {
    for (const auto& [name, value] : env) {
      if (value.empty())
        unsetenv(name.c_str());
      else
        setenv(name.c_str(), value.c_str(), 1);
    }
    dup2(pipe_fds[1], 1);
    const int null_fd = open("/dev/null", O_WRONLY);
    if (null_fd >= 0) dup2(null_fd, 2);
    execvp(args[0], args.data());
    _exit(127);
  }
  close(pipe_fds[1]);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
  char buf[4096];
  for (;;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      result->timed_out = true;
      kill(pid, SIGKILL);
      break;
    }
    pollfd p = {pipe_fds[0], POLLIN, 0};
    const int n = poll(&p, 1, static_cast<int>(left.count()));
    if (n < 0 && errno == EINTR) continue;
    if (n == 0) continue;
    const ssize_t got = read(pipe_fds[0], buf, sizeof buf);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) break;  // the program (and every child holding the pipe) closed its output
    result->out.append(buf, static_cast<size_t>(got));
  }
  close(pipe_fds[0]);
  int status = 0;
  if (waitpid(pid, &status, 0) < 0) return Status::IOError(fmt::format("waitpid: {}", std::strerror(errno)));
  if (WIFSIGNALED(status)) result->signal = WTERMSIG(status);
  if (WIFEXITED(status)) result->exit_code = WEXITSTATUS(status);
  if (result->exit_code == 127 && result->out.empty())
    return Status::NotFound(fmt::format("could not run {}", argv[0]));
  return Status::Ok();
}

std::string DescribeEnd(const ProgramResult& r) {
  if (r.timed_out) return "timed out";
  if (r.signal != 0) return fmt::format("signal {} ({})", r.signal, strsignal(r.signal));
  return fmt::format("exit {}", r.exit_code);
}

}  // namespace seer::cli
