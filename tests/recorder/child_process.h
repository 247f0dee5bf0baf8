// A process a recorder test starts in the background (the target of `seer
// record -p`, or seer itself), its stdin and stdout on pipes, its stderr in a file.
#pragma once

#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <string>
#include <thread>
#include <vector>

namespace seer::testing {

// A process started in the background, its stdin and stdout on pipes.
struct Child {
  pid_t pid = -1;
  int in = -1;          // its stdin
  FILE* out = nullptr;  // its stdout

  Child() = default;
  Child(const Child&) = delete;
  Child& operator=(const Child&) = delete;

  void Start(const std::vector<std::string>& argv, const std::string& err_path) {
    int to[2], from[2];
    if (pipe2(to, O_CLOEXEC) != 0 || pipe2(from, O_CLOEXEC) != 0) return;
    pid = fork();
    if (pid == 0) {
      dup2(to[0], 0);
      dup2(from[1], 1);
      const int err = open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      if (err >= 0) dup2(err, 2);
      std::vector<char*> args;
      for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
      args.push_back(nullptr);
      execv(args[0], args.data());
      _exit(127);
    }
    close(to[0]);
    close(from[1]);
    in = to[1];
    out = fdopen(from[0], "r");
  }

  // The next line it prints, without the newline; empty at its end.
  std::string ReadLine() const {
    char line[256];
    if (out == nullptr || fgets(line, sizeof(line), out) == nullptr) return "";
    std::string s(line);
    if (!s.empty() && s.back() == '\n') s.pop_back();
    return s;
  }

  void Send(const std::string& line) const {
    const ssize_t n = write(in, line.data(), line.size());
    EXPECT_EQ(n, static_cast<ssize_t>(line.size()));
  }

  // Waits at most `limit` for its end: its exit code, 128 + signal, or -1 if still running.
  int Wait(std::chrono::milliseconds limit) {
    const auto deadline = std::chrono::steady_clock::now() + limit;
    for (;;) {
      int status = 0;
      if (waitpid(pid, &status, WNOHANG) == pid) {
        pid = -1;
        return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
      }
      if (std::chrono::steady_clock::now() >= deadline) return -1;
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
  }

  ~Child() {
    if (pid > 0) {
      kill(pid, SIGKILL);
      waitpid(pid, nullptr, 0);
    }
    if (in >= 0) close(in);
    if (out != nullptr) fclose(out);
  }
};

}  // namespace seer::testing
