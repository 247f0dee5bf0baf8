// `seer record`: runs a command (or attaches to a running process) under the BPF
// sync tracer and writes one trace. Launch: the child is forked and held before
// exec until every probe is attached. Attach: records until the process exits,
// the duration ends or seer gets SIGINT/SIGTERM, then detaches and leaves it running.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string>
#include <vector>

#include "seer/status.h"

namespace seer::daemon {

struct RecordOptions {
  std::string output = "run.seer";
  std::vector<std::string> command;  // launch mode: argv of the target
  pid_t pid = 0;                     // attach mode when > 0
  double duration_s = 0;             // attach mode: stop after this long (0: no limit)
  uint64_t ringbuf_bytes = 8ull << 20;
  // How late a record may reach user space after a later-stamped one (records are
  // stamped before they are reserved, on several CPUs).
  uint64_t reorder_window_ns = 20'000'000;
  bool quiet = false;  // no summary line on stderr
  // A target built with seer's runtime: also drain its rings (accesses,
  // atomics, alloc/free, calls) and place them among the sync events by the
  // stamps the probes read from each thread's ring head. In attach mode the
  // rings are laid out in the runtime's attach point (daemon/attach_point.h).
  bool runtime = false;
};

struct RecordResult {
  bool target_exited = false;
  int exit_status = 0;  // the target's exit code, or 128 + signal
  uint64_t events = 0;
  uint64_t lost = 0;
  uint64_t threads = 0;
  bool runtime_seen = false;  // options.runtime: the target attached to the rings
  // options.runtime: why the runtime's accesses are missing (empty when they are not).
  std::string runtime_note;
  // The target called exec: the trace ends there (the new program is not recorded).
  bool exec_not_followed = false;
  std::string exec_program;  // what it executed, when /proc still told
};

Status Record(const RecordOptions& options, RecordResult* result);

// Root, or CAP_BPF and CAP_PERFMON in the effective set.
Status CheckRecordPrivileges();

}  // namespace seer::daemon
