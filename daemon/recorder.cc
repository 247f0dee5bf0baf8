// The recorder's front door: picks the mode's implementation, runs a whole
// recording for callers that need no control in between, and the checks every
// front end shares (privileges, whether a binary carries the runtime).
#include "daemon/recorder.h"

#include <linux/capability.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cstdlib>

#include "daemon/drain/inproc_recording.h"
#include "daemon/ebpf/ebpf_recording.h"
#include "daemon/elf_file.h"
#include "seer/ring_layout.h"

namespace seer::daemon {

std::string_view RecordModeName(RecordMode mode) {
  switch (mode) {
    case RecordMode::kEbpf: return "ebpf";
    case RecordMode::kInproc: return "inproc";
  }
  return "?";
}

Status Recording::Start(const RecordOptions& options, std::unique_ptr<Recording>* out) {
  if (options.command.empty() && options.pid <= 0) return Status::InvalidArgument("give a command to run or a pid");
  switch (options.mode) {
    case RecordMode::kEbpf: return StartEbpfRecording(options, out);
    case RecordMode::kInproc: return StartInprocRecording(options, out);
  }
  return Status::InvalidArgument("unknown recording mode");
}

Status Record(const RecordOptions& options, RecordResult* result) {
  *result = RecordResult();
  std::unique_ptr<Recording> recording;
  Status st = Recording::Start(options, &recording);
  if (!st.ok()) return st;
  bool running = true;
  while (running && st.ok()) st = recording->Poll(&running);
  Status finished = recording->Finish(result);
  return st.ok() ? finished : st;
}

Status CheckRecordPrivileges() {
  if (geteuid() == 0) return Status::Ok();
  __user_cap_header_struct header = {_LINUX_CAPABILITY_VERSION_3, 0};
  __user_cap_data_struct data[2] = {};
  if (syscall(SYS_capget, &header, data) == 0) {
    auto has = [&](int cap) { return (data[cap / 32].effective >> (cap % 32)) & 1u; };
    if (has(CAP_BPF) && has(CAP_PERFMON)) return Status::Ok();
  }
  return Status::Permission("seer record needs root or CAP_BPF and CAP_PERFMON to attach uprobes");
}

bool CarriesRuntime(const std::string& path) {
  if (path.find('/') != std::string::npos) return HasDefinedSymbol(path, rt::kRuntimeMarkerSymbol);
  const char* env = getenv("PATH");
  std::string dirs = env != nullptr ? env : "/usr/local/bin:/usr/bin:/bin";
  size_t start = 0;
  while (start <= dirs.size()) {
    size_t end = dirs.find(':', start);
    if (end == std::string::npos) end = dirs.size();
    const std::string dir = end > start ? dirs.substr(start, end - start) : ".";
    const std::string candidate = dir + "/" + path;
    if (access(candidate.c_str(), X_OK) == 0) return HasDefinedSymbol(candidate, rt::kRuntimeMarkerSymbol);
    start = end + 1;
  }
  return false;
}

}  // namespace seer::daemon
