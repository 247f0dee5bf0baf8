// `seer record -p PID` on a program built with seer's runtime: finds the
// runtime's attach point (include/seer/ring_layout.h, AttachPoint) among the
// process's open files, claims it, lays the shared rings out in it, asks the
// runtime to start recording, and at the end tells it to stop.
#pragma once

#include <sys/types.h>

#include <string>

#include "recorder/rings/shared_area.h"
#include "seer/ring_layout.h"
#include "seer/status.h"

namespace seer::recorder {

class RuntimeAttachPoint {
 public:
  RuntimeAttachPoint() = default;
  RuntimeAttachPoint(const RuntimeAttachPoint&) = delete;
  RuntimeAttachPoint& operator=(const RuntimeAttachPoint&) = delete;
  // Detaches (or releases an unused claim): the target never waits for a recorder that is gone.
  ~RuntimeAttachPoint();

  // Finds and claims `pid`'s attach point. NotFound: the process has none (its
  // runtime predates attach mode, or the program closed the descriptor).
  // InvalidArgument: another seer records it, or did (once per process lifetime).
  Status Claim(pid_t pid);

  // Lays out the rings in the claimed attach point's memfd, after its page.
  Status LayOut(const SharedAreaOptions& options, SharedArea* area);

  // A forked child of a process recorded by injection (runtime/rt_state.cc,
  // RecordForkedChild): a new memfd laid out as an attach point's, the page
  // (claimed by this process) and the rings behind it in `area`, whose fd() the
  // child is given. Its runtime stops writing at Detach, or when this process
  // is gone, as the injected parent's does.
  Status CreateForChild(const SharedAreaOptions& options, SharedArea* area);

  // The rings are laid out and the counter probe attached: each thread starts
  // recording on its next hook. `children_socket` (attach by injection): where
  // a child the process forks asks for rings of its own
  // (rt::AttachPoint::children_socket; too long a path is not written).
  void Request(const std::string& children_socket = "");

  // Recording is over: the runtime stops writing, and never waits for us.
  void Detach();

  // The claimed page (null before Claim): attach by injection waits on it for
  // the runtime to put the program's calls back (recorder/runtime_modes/injected_runtime.h).
  rt::AttachPoint* page() const { return page_; }

 private:
  int fd_ = -1;
  rt::AttachPoint* page_ = nullptr;
  bool requested_ = false;
  bool detached_ = false;
};

}  // namespace seer::recorder
