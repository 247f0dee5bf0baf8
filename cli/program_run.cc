#include "cli/program_run.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>

#include "recorder/launch.h"

namespace seer::cli {

Status RunProgram(const std::vector<std::string>& argv, const std::vector<std::pair<std::string, std::string>>& env,
                  double timeout_s, ProgramResult* result) {
  *result = ProgramResult();
  int pipe_fds[2];
  if (pipe2(pipe_fds, O_CLOEXEC) != 0) return Status::IOError(fmt::format("pipe: {}", std::strerror(errno)));
  const int null_fd = open("/dev/null", O_WRONLY | O_CLOEXEC);
  recorder::LaunchOptions options;
  options.argv = argv;
  options.env = env;
  options.stdout_fd = pipe_fds[1];
  options.stderr_fd = null_fd;
  recorder::Launch launch;
  Status st = launch.Start(options);
  if (st.ok()) st = launch.Release();
  if (null_fd >= 0) close(null_fd);
  if (!st.ok()) {
    close(pipe_fds[0]);
    close(pipe_fds[1]);
    return st;
  }
  const pid_t pid = launch.pid();
  close(pipe_fds[1]);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
  char buf[4096];
  for (;;) {
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
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
  return Status::Ok();
}

std::string DescribeEnd(const ProgramResult& r) {
  if (r.timed_out) return "timed out";
  if (r.signal != 0) return fmt::format("signal {} ({})", r.signal, strsignal(r.signal));
  return fmt::format("exit {}", r.exit_code);
}

}  // namespace seer::cli
