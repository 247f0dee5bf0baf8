#include "recorder/rings/attach_point.h"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <new>
#include <string>

namespace seer::recorder {
namespace {

bool Alive(int64_t pid) { return pid > 0 && (kill(static_cast<pid_t>(pid), 0) == 0 || errno != ESRCH); }

// Opens and maps the attach page behind `link` (/proc/PID/fd/N); false when it is not one.
bool MapPage(const std::string& link, int* fd, rt::AttachPoint** page) {
  *fd = open(link.c_str(), O_RDWR | O_CLOEXEC);
  if (*fd < 0) return false;
  struct stat st;
  void* p = MAP_FAILED;
  if (fstat(*fd, &st) == 0 && static_cast<uint64_t>(st.st_size) >= rt::kAttachAreaOffset)
    p = mmap(nullptr, rt::kAttachAreaOffset, PROT_READ | PROT_WRITE, MAP_SHARED, *fd, 0);
  auto* a = static_cast<rt::AttachPoint*>(p);
  if (p == MAP_FAILED || __atomic_load_n(&a->magic, __ATOMIC_ACQUIRE) != rt::kAttachMagic ||
      a->version != rt::kAttachVersion) {
    if (p != MAP_FAILED) munmap(p, rt::kAttachAreaOffset);
    close(*fd);
    *fd = -1;
    return false;
  }
  *page = a;
  return true;
}

}  // namespace

RuntimeAttachPoint::~RuntimeAttachPoint() {
  if (page_ != nullptr) {
    if (requested_)
      Detach();
    else  // the runtime never saw the area: the next recorder may take the page
      page_->state.store(rt::kAttachIdle, std::memory_order_release);
    munmap(page_, rt::kAttachAreaOffset);
  }
  if (fd_ >= 0) close(fd_);
}

Status RuntimeAttachPoint::Claim(pid_t pid) {
  const std::string fds = "/proc/" + std::to_string(pid) + "/fd";
  const std::string wanted = std::string("/memfd:") + rt::kAttachName + " (deleted)";
  DIR* dir = opendir(fds.c_str());
  if (dir == nullptr)
    return Status::NotFound("cannot list the open files of process " + std::to_string(pid) + ": " +
                            std::strerror(errno));
  while (dirent* entry = readdir(dir)) {
    if (entry->d_name[0] == '.') continue;
    const std::string link = fds + "/" + entry->d_name;
    char target[256];
    const ssize_t n = readlink(link.c_str(), target, sizeof(target) - 1);
    if (n <= 0 || std::string(target, static_cast<size_t>(n)) != wanted) continue;
    if (MapPage(link, &fd_, &page_)) break;
  }
  closedir(dir);
  if (page_ == nullptr)
    return Status::NotFound("process " + std::to_string(pid) +
                            " has no seer-rt-attach descriptor open (its "
                            "runtime predates attach mode, or the program closed the descriptor)");
  uint32_t state = rt::kAttachIdle;
  if (page_->state.compare_exchange_strong(state, rt::kAttachClaimed)) {
    page_->recorder_pid.store(getpid(), std::memory_order_release);
    return Status::Ok();
  }
  // A recorder that died while laying out the area left the runtime untouched: take over.
  int64_t owner = page_->recorder_pid.load();
  if (state == rt::kAttachClaimed && !Alive(owner) && page_->recorder_pid.compare_exchange_strong(owner, getpid()))
    return Status::Ok();
  const std::string who = "process " + std::to_string(pid);
  munmap(page_, rt::kAttachAreaOffset);
  page_ = nullptr;
  if (state == rt::kAttachDetached || !Alive(owner))
    return Status::InvalidArgument(who +
                                   " was recorded by seer once already; its runtime records a process "
                                   "once in its lifetime (restart it to record it again)");
  return Status::InvalidArgument(who + " is being recorded by another seer (pid " + std::to_string(owner) + ")");
}

Status RuntimeAttachPoint::LayOut(const SharedAreaOptions& options, SharedArea* area) {
  const int fd = dup(fd_);
  if (fd < 0) return Status::IOError(std::string("dup: ") + std::strerror(errno));
  Status st = area->CreateOn(fd, rt::kAttachAreaOffset, options);
  if (!st.ok()) return st.WithContext("laying out the rings in the target's attach point");
  // The runtime reads no module map of ours; it must not wait for one.
  area->header()->modules_read.store(1, std::memory_order_release);
  return Status::Ok();
}

Status RuntimeAttachPoint::CreateForChild(const SharedAreaOptions& options, SharedArea* area) {
  // Close-on-exec: the child gets it through the socket, not by inheritance.
  fd_ = memfd_create(rt::kAttachName, MFD_CLOEXEC);
  if (fd_ < 0) return Status::IOError(std::string("memfd_create: ") + std::strerror(errno));
  if (ftruncate(fd_, static_cast<off_t>(rt::kAttachAreaOffset)) != 0)
    return Status::IOError(std::string("sizing a child's attach point: ") + std::strerror(errno));
  void* p = mmap(nullptr, rt::kAttachAreaOffset, PROT_READ | PROT_WRITE, MAP_SHARED, fd_, 0);
  if (p == MAP_FAILED) return Status::IOError(std::string("mapping a child's attach point: ") + std::strerror(errno));
  page_ = new (p) rt::AttachPoint();
  page_->version = rt::kAttachVersion;
  page_->state.store(rt::kAttachClaimed, std::memory_order_relaxed);
  page_->recorder_pid.store(getpid(), std::memory_order_relaxed);
  __atomic_store_n(&page_->magic, rt::kAttachMagic, __ATOMIC_RELEASE);
  const int fd = dup(fd_);
  if (fd < 0) return Status::IOError(std::string("dup: ") + std::strerror(errno));
  Status st = area->CreateOn(fd, rt::kAttachAreaOffset, options);
  if (!st.ok()) return st.WithContext("laying out a child process's rings");
  return Status::Ok();
}

void RuntimeAttachPoint::Request(const std::string& children_socket) {
  if (children_socket.size() < sizeof(page_->children_socket))
    memcpy(page_->children_socket, children_socket.c_str(), children_socket.size() + 1);
  requested_ = true;
  page_->state.store(rt::kAttachRequested, std::memory_order_release);
}

void RuntimeAttachPoint::Detach() {
  if (page_ == nullptr || detached_) return;
  detached_ = true;
  page_->state.store(rt::kAttachDetached, std::memory_order_release);
}

}  // namespace seer::recorder
