// The socket on which the processes of a launched recording ask for rings of
// their own (include/seer/ring_layout.h, ChildRequest): a forked child of a
// recorded process, or a program one of them exec'd. It lives in a directory
// only the recorder's user can enter, and is removed with the listener.
#pragma once

#include <sys/types.h>

#include <string>

#include "seer/status.h"

namespace seer::recorder {

// A process that asked, waiting for its answer.
struct ChildAsk {
  int fd = -1;          // the connection; Answer or Refuse closes it
  pid_t pid = 0;        // from the socket's credentials
  pid_t parent = 0;     // ChildRequest::parent
  bool forked = false;  // else exec'd
};

class ChildListener {
 public:
  ChildListener() = default;
  ChildListener(const ChildListener&) = delete;
  ChildListener& operator=(const ChildListener&) = delete;
  ~ChildListener();

  // `owner` (attach by injection: the recorded process's user, when it is not
  // ours): the directory and the socket are given to that user, so that the
  // processes it forks can ask; other users still cannot.
  Status Open(uid_t owner = static_cast<uid_t>(-1));
  // The socket's path, for the program's environment (kChildrenEnv).
  const std::string& path() const { return path_; }
  // The listening socket, to wait on (readable: a process is asking).
  int fd() const { return fd_; }

  // The next process that asked, without waiting; false when none has. A
  // connection whose request is not one (another seer's runtime, garbage) is
  // closed here.
  bool Next(ChildAsk* ask);
  // Sends the area's memfd; the process maps it and records.
  static Status Answer(ChildAsk* ask, int area_fd);
  // The process goes on unrecorded.
  static void Refuse(ChildAsk* ask);

 private:
  int fd_ = -1;
  std::string dir_;
  std::string path_;
};

}  // namespace seer::recorder
