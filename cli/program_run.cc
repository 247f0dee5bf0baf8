#include "cli/program_run.h"

#include <dirent.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <set>
#include <sstream>

#include "recorder/launch.h"

namespace seer::cli {
namespace {

using Clock = std::chrono::steady_clock;

// Starts `argv` with its standard output into a new pipe (*out_fd: the read end)
// and its standard error discarded.
Status Start(const std::vector<std::string>& argv, const std::vector<std::pair<std::string, std::string>>& env,
             pid_t* pid, int* out_fd) {
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
  close(pipe_fds[1]);
  if (!st.ok()) {
    close(pipe_fds[0]);
    return st;
  }
  *pid = launch.pid();
  *out_fd = pipe_fds[0];
  return Status::Ok();
}

// One child being run: its output so far, and how it ended.
struct Child {
  pid_t pid = -1;
  int out_fd = -1;  // -1 once its output is closed
  bool exited = false;
  int status = 0;

  // Reads what is there; false at the end of its output.
  bool Drain(std::string* out) {
    char buf[4096];
    for (;;) {
      const ssize_t got = read(out_fd, buf, sizeof buf);
      if (got < 0 && errno == EINTR) continue;
      if (got < 0 && errno == EAGAIN) return true;
      if (got <= 0) {
        close(out_fd);
        out_fd = -1;
        return false;
      }
      out->append(buf, static_cast<size_t>(got));
      if (static_cast<size_t>(got) < sizeof buf) return true;
    }
  }
  void Reap(bool block) {
    if (exited || pid < 0) return;
    const pid_t r = waitpid(pid, &status, block ? 0 : WNOHANG);
    if (r == pid) exited = true;
  }
};

// Reads the children's outputs for up to `ms` milliseconds (or until one of
// them has something).
void Pump(Child* program, std::string* program_out, Child* load, std::string* load_out, int ms) {
  pollfd fds[2];
  int n = 0;
  if (program->out_fd >= 0) fds[n++] = {program->out_fd, POLLIN, 0};
  if (load != nullptr && load->out_fd >= 0) fds[n++] = {load->out_fd, POLLIN, 0};
  if (n == 0) {
    // Nothing to read: the program closed its output and is exiting. A
    // millisecond, not `ms`: a run's end is waited for in every fuzz run.
    usleep(1000);
    return;
  }
  if (poll(fds, static_cast<nfds_t>(n), ms) <= 0) return;
  for (int i = 0; i < n; ++i) {
    if (fds[i].revents == 0) continue;
    if (fds[i].fd == program->out_fd)
      program->Drain(program_out);
    else
      load->Drain(load_out);
  }
}

int MillisecondsLeft(Clock::time_point deadline) {
  return static_cast<int>(
      std::max<int64_t>(0, std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count()));
}

void SetEnd(int status, int* exit_code, int* signal) {
  if (WIFSIGNALED(status)) *signal = WTERMSIG(status);
  if (WIFEXITED(status)) *exit_code = WEXITSTATUS(status);
}

}  // namespace

std::vector<int> ListeningPorts(int pid) {
  std::set<uint64_t> inodes;
  const std::string fd_dir = fmt::format("/proc/{}/fd", pid);
  if (DIR* d = opendir(fd_dir.c_str())) {
    while (dirent* e = readdir(d)) {
      char target[64];
      const ssize_t n = readlink((fd_dir + "/" + e->d_name).c_str(), target, sizeof target - 1);
      if (n <= 0) continue;
      target[n] = '\0';
      unsigned long long inode = 0;
      if (sscanf(target, "socket:[%llu]", &inode) == 1) inodes.insert(inode);
    }
    closedir(d);
  }
  std::vector<int> ports;
  for (const char* table : {"tcp", "tcp6"}) {
    std::ifstream in(fmt::format("/proc/{}/net/{}", pid, table));
    std::string line;
    std::getline(in, line);  // the header
    while (std::getline(in, line)) {
      // "sl local_address rem_address st tx_queue:rx_queue tr:tm->when retrnsmt uid timeout inode"
      std::istringstream words(line);
      std::string sl, local, remote, state, queues, timer, retransmits, uid, timeout;
      uint64_t inode = 0;
      if (!(words >> sl >> local >> remote >> state >> queues >> timer >> retransmits >> uid >> timeout >> inode))
        continue;
      const size_t colon = local.rfind(':');
      if (state != "0A" || colon == std::string::npos || inodes.count(inode) == 0) continue;  // 0A: LISTEN
      ports.push_back(static_cast<int>(std::strtol(local.c_str() + colon + 1, nullptr, 16)));
    }
  }
  std::sort(ports.begin(), ports.end());
  ports.erase(std::unique(ports.begin(), ports.end()), ports.end());
  return ports;
}

Status RunProgram(const RunOptions& options, ProgramResult* result) {
  *result = ProgramResult();
  Child program;
  Status st = Start(options.argv, options.env, &program.pid, &program.out_fd);
  if (!st.ok()) return st;
  fcntl(program.out_fd, F_SETFL, O_NONBLOCK);
  const Clock::time_point deadline =
      Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(options.timeout_s));
  Child load;
  bool stopping = false;  // the load is over: the program was sent SIGTERM
  for (;;) {
    if (MillisecondsLeft(deadline) == 0) {
      result->timed_out = true;
      kill(program.pid, SIGKILL);
      if (load.pid > 0 && !load.exited) kill(load.pid, SIGKILL);
      break;
    }
    program.Reap(false);
    if (program.exited && load.pid > 0 && !load.exited && !stopping) {
      // The program ended under its load (a crash, an exit): the load stops too.
      stopping = true;
      kill(load.pid, SIGTERM);
    }
    if (load.pid > 0) load.Reap(false);
    const bool load_over = load.pid < 0 || (load.exited && load.out_fd < 0);
    if (program.out_fd < 0 && program.exited && load_over) break;
    if (!options.load.empty() && !stopping) {
      if (load.pid < 0 && !program.exited) {
        // Started once the program listens: polled while it prepares.
        if (const std::vector<int> ports = ListeningPorts(program.pid); !ports.empty()) {
          result->load_port = ports.front();
          std::vector<std::pair<std::string, std::string>> env = {
              {"SEER_LOAD_PORT", std::to_string(result->load_port)}, {"SEER_FUZZ", ""}, {"SEER_FUZZ_OUT", ""}};
          st = Start({"/bin/sh", "-c", options.load}, env, &load.pid, &load.out_fd);
          if (!st.ok()) {
            kill(program.pid, SIGKILL);
            program.Reap(true);
            return st;
          }
          fcntl(load.out_fd, F_SETFL, O_NONBLOCK);
          result->load_ran = true;
        }
      }
      if (load.pid > 0 && load.exited && load.out_fd < 0) {
        stopping = true;
        kill(program.pid, SIGTERM);
      }
    }
    const int slice = options.load.empty() || stopping ? 100 : 10;
    Pump(&program, &result->out, load.pid > 0 ? &load : nullptr, &result->load_out,
         std::min(slice, std::max(1, MillisecondsLeft(deadline))));
  }
  if (program.out_fd >= 0) close(program.out_fd);
  if (load.out_fd >= 0) close(load.out_fd);
  program.Reap(true);
  if (load.pid > 0) load.Reap(true);
  SetEnd(program.status, &result->exit_code, &result->signal);
  if (load.pid > 0) SetEnd(load.status, &result->load_exit_code, &result->load_signal);
  return Status::Ok();
}

std::string DescribeEnd(const ProgramResult& r) {
  if (r.timed_out) return "timed out";
  if (r.signal != 0) return fmt::format("signal {} ({})", r.signal, strsignal(r.signal));
  return fmt::format("exit {}", r.exit_code);
}

std::string DescribeLoad(const ProgramResult& r) {
  if (!r.load_ran) return "not started: the program never listened on a TCP port";
  if (r.load_signal != 0) return fmt::format("signal {} ({})", r.load_signal, strsignal(r.load_signal));
  return fmt::format("exit {}", r.load_exit_code);
}

}  // namespace seer::cli
