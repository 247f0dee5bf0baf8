// Attach by injection (`seer record -p PID --sync=inject`, docs/recording.md):
// loads libseer_rt.so into a running dynamically linked process, lays the
// shared rings out in the attach point its constructor creates, and has the
// runtime redirect the process's pthread, semaphore and allocation calls to
// its interposers (runtime/attach_inject.cc). At the end the runtime puts the
// calls back; the library stays mapped (unloading it under running threads is
// not safe), idle.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <string>

#include "recorder/rings/attach_point.h"
#include "recorder/rings/shared_area.h"
#include "seer/status.h"

namespace seer::recorder {

class InjectedRuntime {
 public:
  // Why the runtime cannot be loaded into `pid` (empty: it can): no such
  // process, not a dynamically linked x86-64 program, or it carries the runtime
  // already (built with seer-cc, preloaded, or injected before).
  static std::string WhyNotInjectable(pid_t pid);

  // Loads `library` (an absolute path) into `pid` and starts recording into
  // `area` (laid out here). `futex_stamps`: the futex tracepoints are loaded
  // for the process; each thread registers its record counter with them.
  // Errors leave the process running unrecorded: Permission when ptrace is not
  // allowed, NotFound when no thread reached a safe point, IOError when the
  // library could not be loaded or the calls redirected (with dlerror's text).
  // `children_socket` (empty: none): where a child the process forks asks for
  // rings of its own (runtime_modes/process_family.h), written in the attach page.
  Status Inject(pid_t pid, const std::string& library, const SharedAreaOptions& options, bool futex_stamps,
                const std::string& children_socket, SharedArea* area);

  // A child `pid` forked by an injected process asked for rings: lays them out
  // in `area` behind an attach page of this recorder's own (the child's
  // runtime maps both, rings/attach_point.h, CreateForChild), so that Detach
  // ends its recording as it ends the parent's: the child runs on. Its own
  // forks ask at `children_socket` in turn.
  Status FollowChild(pid_t pid, const SharedAreaOptions& options, const std::string& children_socket, SharedArea* area);

  // Asks the runtime to put the calls back and stop recording, and waits up
  // to `limit` until it says it has (the recorder then collects what is left).
  Status Detach(std::chrono::milliseconds limit);

  uint32_t slots() const { return slots_; }      // relocation slots redirected
  uint32_t modules() const { return modules_; }  // in that many modules

 private:
  pid_t pid_ = -1;
  std::string exe_;  // the process's program: one it execs has no runtime to answer Detach
  RuntimeAttachPoint attach_;
  uint32_t slots_ = 0;
  uint32_t modules_ = 0;
};

}  // namespace seer::recorder
