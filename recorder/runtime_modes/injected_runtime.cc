#include "recorder/runtime_modes/injected_runtime.h"

#include <dlfcn.h>
#include <elf.h>
#include <fcntl.h>
#include <linux/futex.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstring>
#include <map>
#include <memory>
#include <thread>
#include <vector>

#include "recorder/elf_file.h"
#include "recorder/proc_maps.h"
#include "recorder/recorder.h"
#include "recorder/runtime_modes/remote_call.h"

namespace seer::recorder {
namespace {

// The flag of __seer_rt_inject (runtime/attach_inject.cc): register each thread's counter.
constexpr uint64_t kInjectFutexStamps = 1;

// True when the file is a 64-bit x86 ELF object, as seer is.
bool IsX86_64Elf(const std::string& path) {
  Elf64_Ehdr h;
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  const bool read_all = read(fd, &h, sizeof h) == static_cast<ssize_t>(sizeof h);
  close(fd);
  return read_all && memcmp(h.e_ident, ELFMAG, SELFMAG) == 0 && h.e_ident[EI_CLASS] == ELFCLASS64 &&
         h.e_machine == EM_X86_64;
}

bool MapsRuntime(const std::vector<Mapping>& maps) {
  for (const Mapping& m : maps)
    if (m.path.find("libseer_rt") != std::string::npos) return true;
  return false;
}

// The run-time address of `name` in the mapped file `path` (0 when absent).
uint64_t RemoteAddress(const std::vector<Mapping>& maps, const std::string& path, const std::string& name) {
  std::map<std::string, FunctionLocation> found;
  if (!ResolveFunctions(path, {name}, &found).ok() || found.count(name) == 0) return 0;
  const uint64_t offset = found[name].file_offset;
  for (const Mapping& m : maps)
    if (m.path == path && m.executable && offset >= m.offset && offset - m.offset < m.end - m.start)
      return m.start + (offset - m.offset);
  return 0;
}

}  // namespace

std::string InjectedRuntime::WhyNotInjectable(pid_t pid) {
  const std::string who = "process " + std::to_string(pid);
  if (pid <= 0 || (kill(pid, 0) != 0 && errno == ESRCH)) return "no such process: " + std::to_string(pid);
  const std::string exe = "/proc/" + std::to_string(pid) + "/exe";
  if (!IsX86_64Elf(exe)) return who + " is not an x86-64 ELF program (or its executable cannot be read)";
  if (!IsDynamicExecutable(exe)) return who + " is statically linked: it cannot load the runtime";
  std::vector<Mapping> maps;
  if (!ReadProcMaps(pid, &maps).ok()) return "cannot read the memory map of " + who;
  if (CarriesRuntime(exe) || MapsRuntime(maps))
    return who + " carries the seer runtime already (built with seer-cc, preloaded, or injected before)";
  return "";
}

Status InjectedRuntime::Inject(pid_t pid, const std::string& given_library, const SharedAreaOptions& options,
                               bool futex_stamps, const std::string& children_socket, SharedArea* area) {
  pid_ = pid;
  exe_ = ProcessExecutable(pid);
  // The path the process's memory map will show (no symbolic link, no relative part).
  char real[PATH_MAX];
  if (realpath(given_library.c_str(), real) == nullptr)
    return Status::NotFound("the runtime library " + given_library + ": " + std::strerror(errno));
  const std::string library = real;
  const std::string who = "process " + std::to_string(pid);
  if (const std::string why = WhyNotInjectable(pid); !why.empty()) return Status::InvalidArgument(why);
  std::vector<Mapping> maps;
  Status st = ReadProcMaps(pid, &maps);
  if (!st.ok()) return st;
  const std::string exe = ProcessExecutable(pid);
  uint64_t exe_start = ~0ull, exe_end = 0;
  for (const Mapping& m : maps)
    if (m.executable && m.path == exe) exe_start = std::min(exe_start, m.start), exe_end = std::max(exe_end, m.end);
  // glibc 2.34 and later export dlopen from libc; older ones have __libc_dlopen_mode there.
  const Mapping* libc = FindMappedFile(maps, "libc.so");
  if (libc == nullptr) return Status::NotFound(who + " maps no libc.so: cannot load the runtime into it");
  uint64_t dlopen_at = RemoteAddress(maps, libc->path, "dlopen");
  if (dlopen_at == 0) dlopen_at = RemoteAddress(maps, libc->path, "__libc_dlopen_mode");
  const uint64_t dlerror_at = RemoteAddress(maps, libc->path, "dlerror");
  if (dlopen_at == 0) return Status::NotFound("no dlopen in " + libc->path);

  std::unique_ptr<RemoteThread> thread;
  st = RemoteThread::Seize(pid, exe_start, exe_end, &thread);
  if (!st.ok()) return st;
  uint64_t handle = 0;
  st = thread->Call(dlopen_at, {RemoteThread::kDataArg, RTLD_NOW}, library, &handle);
  if (!st.ok()) return st.WithContext("loading " + library + " into " + who);
  if (handle == 0) {
    uint64_t message = 0;
    std::string why = "dlopen failed";
    if (dlerror_at != 0 && thread->Call(dlerror_at, {}, "", &message).ok() && message != 0)
      why = thread->ReadString(message);
    return Status::IOError("loading " + library + " into " + who + ": " + why);
  }
  // The runtime's constructor made the attach point: the rings go there.
  st = attach_.Claim(pid);
  if (st.ok()) st = attach_.LayOut(options, area);
  if (!st.ok()) return st;
  attach_.Request(children_socket);
  if (!ReadProcMaps(pid, &maps).ok()) return Status::NotFound(who + " ended while the runtime was loaded");
  const uint64_t entry = RemoteAddress(maps, library, "__seer_rt_inject");
  if (entry == 0) return Status::NotFound(library + " has no __seer_rt_inject: a runtime older than this seer");
  uint64_t result = 0;
  st = thread->Call(entry, {futex_stamps ? kInjectFutexStamps : 0}, "", &result);
  if (!st.ok()) return st.WithContext("starting the runtime in " + who);
  st = thread->Release();
  const int64_t r = static_cast<int64_t>(result);
  if (r < 0) {
    const std::string why = r == -1   ? "it found no rings to record into"
                            : r == -2 ? "it could not start its detach thread"
                                      : "a module's relocations could not be made writable: " +
                                            std::string(std::strerror(static_cast<int>(-1000 - r)));
    return Status::IOError("the runtime in " + who + " did not start: " + why);
  }
  slots_ = static_cast<uint32_t>(result);
  modules_ = static_cast<uint32_t>(result >> 32);
  if (!st.ok()) return st.WithContext("resuming the thread that loaded the runtime");
  return Status::Ok();
}

Status InjectedRuntime::FollowChild(pid_t pid, const SharedAreaOptions& options, const std::string& children_socket,
                                    SharedArea* area) {
  pid_ = pid;
  exe_ = ProcessExecutable(pid);
  Status st = attach_.CreateForChild(options, area);
  if (!st.ok()) return st;
  attach_.Request(children_socket);
  return Status::Ok();
}

Status InjectedRuntime::Detach(std::chrono::milliseconds limit) {
  rt::AttachPoint* page = attach_.page();
  if (page == nullptr) return Status::Ok();
  attach_.Detach();
  syscall(SYS_futex, reinterpret_cast<uint32_t*>(&page->state), FUTEX_WAKE, INT_MAX, nullptr, nullptr, 0);
  const auto deadline = std::chrono::steady_clock::now() + limit;
  while (page->restored.load(std::memory_order_acquire) == 0) {
    if (kill(pid_, 0) != 0 && errno == ESRCH) return Status::Ok();  // gone: nothing to put back
    // Another program (an exec): the runtime went with the old one.
    if (const std::string now = ProcessExecutable(pid_); !now.empty() && !exe_.empty() && now != exe_)
      return Status::Ok();
    if (std::chrono::steady_clock::now() >= deadline)
      return Status::IOError("the runtime in process " + std::to_string(pid_) +
                             " did not confirm that it put the program's calls back");
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return Status::Ok();
}

}  // namespace seer::recorder
