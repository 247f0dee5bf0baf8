// One launch of a target program, shared by every recording mode and by
// `seer fuzz`: the PATH lookup exec would make, a fork whose child waits before
// exec until the parent lets it go (the recorder attaches its probes or loads
// its tracepoints for the child's pid first), exec failures reported exactly
// through a close-on-exec pipe, and on request the child held at its program
// entry point (entry_stop.h) while the recorder reads its module map.
#pragma once

#include <sys/types.h>

#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "recorder/entry_stop.h"
#include "seer/status.h"

namespace seer::recorder {

// The file execvp would run for `name`: `name` itself when it contains a slash,
// else the first executable file of that name in PATH. NotFound, naming the
// program, when there is none.
Status FindExecutable(const std::string& name, std::string* path);

struct LaunchOptions {
  std::vector<std::string> argv;  // argv[0] is looked up with FindExecutable
  // Changes to the child's environment, in order: NAME=VALUE, or NAME unset
  // when VALUE is empty.
  std::vector<std::pair<std::string, std::string>> env;
  // Where the child's standard output and error go (-1: inherited).
  int stdout_fd = -1;
  int stderr_fd = -1;
  // Runs in the child once it was let go, before the environment changes and
  // exec, with the byte the parent passed to Release. The parent may have
  // threads: only what is safe after fork belongs here.
  std::function<void(char)> in_child;
  // The child asks to be traced, so that exec stops it; Release then runs it
  // to its entry point and leaves it there until DetachFromEntry.
  bool stop_at_entry = false;
};

class Launch {
 public:
  Launch() = default;
  Launch(const Launch&) = delete;
  Launch& operator=(const Launch&) = delete;
  // A child that was started but never released is ended without exec.
  ~Launch();

  // Looks the program up and forks the child, which waits for Release.
  Status Start(const LaunchOptions& options);

  // Lets the child exec, passing `byte` to its in_child. NotFound ("cannot run
  // PROGRAM: reason") when exec failed; the child is reaped then. With
  // stop_at_entry the child is stopped at its entry point on success.
  Status Release(char byte = 0);

  // With stop_at_entry, after Release: lets the child go on untraced.
  Status DetachFromEntry();

  // Before Release: ends the child without exec and reaps it.
  void Abandon();

  pid_t pid() const { return pid_; }
  // The file that is (or was to be) executed.
  const std::string& executable() const { return executable_; }

 private:
  pid_t pid_ = -1;
  std::string executable_;
  std::string program_;  // argv[0], for messages
  bool stop_at_entry_ = false;
  int go_fd_ = -1;          // the parent's end of the go-ahead pipe
  int exec_error_fd_ = -1;  // the parent's end of the exec error pipe
  EntryStop entry_stop_;
};

}  // namespace seer::recorder
