// The recorder's front door: picks the mode's implementation, runs a whole
// recording for callers that need no control in between, and the checks every
// front end shares (privileges, whether a binary carries the runtime).
#include "recorder/recorder.h"

#include <linux/capability.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cstdlib>

#include "recorder/ebpf/ebpf_family.h"
#include "recorder/ebpf/ebpf_recording.h"
#include "recorder/elf_file.h"
#include "recorder/launch.h"
#include "recorder/runtime_modes/injected_runtime.h"
#include "recorder/runtime_modes/inproc_recording.h"
#include "recorder/runtime_modes/process_family.h"
#include "seer/ring_layout.h"

namespace seer::recorder {

std::string_view RecordModeName(RecordMode mode) {
  switch (mode) {
    case RecordMode::kEbpf: return "ebpf";
    case RecordMode::kInproc: return "inproc";
    case RecordMode::kPreload: return "preload";
    case RecordMode::kInject: return "inject";
  }
  return "?";
}

namespace {

Status StartMode(const RecordOptions& options, std::unique_ptr<Recording>* out) {
  switch (options.mode) {
    case RecordMode::kEbpf:
      // Into a file it follows the target's processes; the service's windows
      // (open_writer) record the first one only.
      if (!options.open_writer) return StartEbpfFamilyRecording(options, out);
      {
        std::unique_ptr<EbpfProcessRecording> recording;
        Status st = StartEbpfRecording(options, EbpfFollow(), &recording);
        *out = std::move(recording);
        return st;
      }
    case RecordMode::kInproc:
    case RecordMode::kPreload:
      // A launch into a file follows the program's processes; the service's
      // windows (open_writer) record the first one only.
      if (!options.open_writer && options.pid <= 0) return StartProcessFamilyRecording(options, out);
      return StartInprocRecording(options, out);
    case RecordMode::kInject:
      // So does a process attached by injection, into a file: the children it forks.
      if (!options.open_writer) return StartProcessFamilyRecording(options, out);
      return StartInprocRecording(options, out);
  }
  return Status::InvalidArgument("unknown recording mode");
}

}  // namespace

Status Recording::Start(const RecordOptions& options, std::unique_ptr<Recording>* out) {
  if (options.command.empty() && options.pid <= 0) return Status::InvalidArgument("give a command to run or a pid");
  if (options.open_writer) return StartMode(options, out);
  // A start that fails (a program or process that is not there, privileges,
  // probes the kernel refuses) happens after the trace was created, which
  // replaces the file at `output`: the file there is moved aside until the
  // recording runs, and put back, with the new trace removed, if it does not.
  const std::string aside = options.output + ".previous-" + std::to_string(getpid());
  struct stat st;
  const bool existed = lstat(options.output.c_str(), &st) == 0;
  const bool moved =
      existed && (S_ISREG(st.st_mode) || S_ISLNK(st.st_mode)) && rename(options.output.c_str(), aside.c_str()) == 0;
  Status started = StartMode(options, out);
  if (started.ok()) {
    if (moved) unlink(aside.c_str());
    return started;
  }
  if (!existed || moved) unlink(options.output.c_str());
  if (moved) rename(aside.c_str(), options.output.c_str());
  return started;
}

Status OpenRecordingWriter(const RecordOptions& options, const TraceWriterOptions& writer_options,
                           std::unique_ptr<TraceWriter>* out) {
  if (options.open_writer) return options.open_writer(writer_options, out);
  return TraceWriter::Create(options.output, writer_options, out);
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

std::string UnfollowedForks(uint64_t forks, pid_t pid, const std::string& why) {
  return std::to_string(forks) + " child process" + (forks == 1 ? "" : "es") + " forked by process " +
         std::to_string(pid) + " (" + why + ")";
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

namespace {

// What exec would run for `name` (empty when there is none).
std::string ResolveProgram(const std::string& name) {
  std::string path;
  return FindExecutable(name, &path).ok() ? path : "";
}

std::string DirName(const std::string& path) {
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? "." : path.substr(0, slash);
}

}  // namespace

bool CarriesRuntime(const std::string& path) {
  const std::string file = ResolveProgram(path);
  return !file.empty() && HasDefinedSymbol(file, rt::kRuntimeMarkerSymbol);
}

bool IsDynamicExecutable(const std::string& path) {
  const std::string file = ResolveProgram(path);
  bool dynamic = false;
  return !file.empty() && IsDynamicallyLinked(file, &dynamic).ok() && dynamic;
}

RecordMode AutoRecordMode(const std::vector<std::string>& command, pid_t pid, std::string* why_not_inject) {
  if (pid > 0) {
    std::string why = InjectedRuntime::WhyNotInjectable(pid), library;
    if (why.empty()) {
      Status found = FindRuntimeLibrary(&library);
      if (found.ok()) return RecordMode::kInject;
      why = found.ToString();
    }
    if (why_not_inject != nullptr) *why_not_inject = why;
    return RecordMode::kEbpf;
  }
  if (command.empty()) return RecordMode::kEbpf;
  if (CarriesRuntime(command[0])) return RecordMode::kInproc;
  if (IsDynamicExecutable(command[0])) return RecordMode::kPreload;
  return RecordMode::kEbpf;
}

Status FindRuntimeLibrary(std::string* path) {
  constexpr const char* kName = "libseer_rt.so";
  std::vector<std::string> candidates;
  if (const char* env = getenv("SEER_RT_LIBRARY"); env != nullptr && *env != '\0') {
    // An explicit choice is taken or refused, never replaced by another copy.
    if (access(env, R_OK) == 0) {
      *path = env;
      return Status::Ok();
    }
    return Status::NotFound(std::string("SEER_RT_LIBRARY=") + env + " cannot be read");
  }
  char self[4096];
  const ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
  if (n > 0) {
    const std::string dir = DirName(std::string(self, static_cast<size_t>(n)));
    for (const char* rel : {"/", "/../lib/seer/", "/../lib/", "/../runtime/"}) candidates.push_back(dir + rel + kName);
  }
#ifdef SEER_RT_LIBRARY_BUILD_PATH
  candidates.push_back(SEER_RT_LIBRARY_BUILD_PATH);
#endif
  std::string looked;
  for (const std::string& c : candidates) {
    if (access(c.c_str(), R_OK) == 0) {
      char real[4096];
      *path = realpath(c.c_str(), real) != nullptr ? real : c;  // LD_PRELOAD wants no relative parts
      return Status::Ok();
    }
    looked += (looked.empty() ? "" : ", ") + c;
  }
  return Status::NotFound(std::string(kName) + " not found (looked at " + looked +
                          "); set SEER_RT_LIBRARY or use --sync=ebpf");
}

std::string PreloadWith(const char* current, const std::string& library) {
  std::string value = current != nullptr ? current : "";
  // ld.so splits LD_PRELOAD at spaces and colons.
  size_t start = 0;
  while (start < value.size()) {
    size_t end = value.find_first_of(" :", start);
    if (end == std::string::npos) end = value.size();
    if (value.compare(start, end - start, library) == 0) return value;
    start = end + 1;
  }
  return value.empty() ? library : value + ":" + library;
}

}  // namespace seer::recorder
