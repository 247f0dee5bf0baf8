#include "recorder/rings/shared_area.h"

#include <fcntl.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <new>
#include <string>
#include <vector>

#include "recorder/proc_maps.h"

namespace seer::recorder {

SharedArea::~SharedArea() {
  if (base_ != nullptr) munmap(base_, bytes_);
  if (fd_ >= 0) close(fd_);
}

Status SharedArea::Create(const SharedAreaOptions& o) {
  // Not close-on-exec: the target inherits it. Pages exist only once touched.
  const int fd = memfd_create("seer-rt", 0);
  if (fd < 0) return Status::IOError(std::string("memfd_create: ") + std::strerror(errno));
  return CreateOn(fd, 0, o);
}

Status SharedArea::CreateOn(int fd, uint64_t offset, const SharedAreaOptions& o) {
  fd_ = fd;
  if (o.ring_words < 64 || (o.ring_words & (o.ring_words - 1)) != 0)
    return Status::InvalidArgument("ring size must be a power of two of at least 64 words, not " +
                                   std::to_string(o.ring_words));
  if (o.max_rings == 0) return Status::InvalidArgument("at least one ring is needed");
  offset_ = offset;
  bytes_ = offset + rt::ShmBytes(o.max_rings, o.ring_words);
  if (ftruncate(fd_, static_cast<off_t>(bytes_)) != 0)
    return Status::IOError(std::string("sizing the runtime's shared rings: ") + std::strerror(errno));
  void* p = mmap(nullptr, bytes_, PROT_READ | PROT_WRITE, MAP_SHARED, fd_, 0);
  if (p == MAP_FAILED) return Status::IOError(std::string("mapping the runtime's rings: ") + std::strerror(errno));
  base_ = p;
  auto* h = new (header()) rt::ShmHeader();
  h->magic = rt::kShmMagic;
  h->version = rt::kShmVersion;
  h->max_rings = o.max_rings;
  h->ring_words = o.ring_words;
  h->wait_ns = o.wait_ns;
  h->options = o.options;
  h->watch_period = o.watch_period;
  h->watch_delay_us = o.watch_delay_us;
  h->watch_budget_permille = o.watch_budget_permille;
  h->ring_offset = rt::RingOffset(o.max_rings);
  // Watches only (--sync=none): every ring paused from the start, so that
  // they carry thread starts and ends and the caught races alone, whether the
  // target is launched or attached.
  const uint32_t paused = (o.options & rt::kOptionWatchOnly) != 0 ? 1u : 0u;
  for (uint32_t i = 0; i < o.max_rings; ++i) {
    auto* d = new (&rt::RingDescs(h)[i]) rt::RingDesc();
    d->parent = -1;
    d->paused = paused;
  }
  return Status::Ok();
}

void SharedArea::ReleaseRings() {
  if (fd_ < 0 || base_ == nullptr) return;
  const rt::ShmHeader* h = header();
  const uint64_t start = offset_ + h->ring_offset;
  // Best effort: a failure leaves the memory where it was, nothing more.
  (void)fallocate(fd_, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, static_cast<off_t>(start),
                  static_cast<off_t>(bytes_ - start));
}

Status SharedArea::HeaderAddressIn(pid_t pid, uint64_t* address) const {
  struct stat st;
  if (fd_ < 0 || fstat(fd_, &st) != 0) return Status::IOError("the runtime's shared rings are not open");
  std::vector<recorder::Mapping> maps;
  Status s = recorder::ReadProcMaps(pid, &maps);
  if (!s.ok()) return s;
  for (const auto& m : maps) {
    // A memfd's inode number is unique among memfds, not among all files.
    if (m.inode != st.st_ino || m.path.rfind("/memfd:", 0) != 0) continue;
    if (m.offset > offset_ || offset_ - m.offset >= m.end - m.start) continue;  // another part of the file
    *address = m.start + (offset_ - m.offset);
    return Status::Ok();
  }
  return Status::NotFound("process " + std::to_string(pid) + " does not map the runtime's shared rings");
}

void SharedArea::SetPaused(bool paused) {
  if (base_ == nullptr) return;
  rt::ShmHeader* h = header();
  // Relaxed: the word orders nothing; each thread sees it at its next hook.
  for (uint32_t i = 0; i < h->max_rings; ++i)
    __atomic_store_n(&rt::RingDescs(h)[i].paused, paused ? 1u : 0u, __ATOMIC_RELAXED);
}

void SharedArea::ExportToChild(bool sync_inproc, bool futex_stamps) const {
  setenv(rt::kShmFdEnv, std::to_string(fd_).c_str(), 1);
  setenv(rt::kSyncEnv, !sync_inproc ? "ebpf" : futex_stamps ? rt::kSyncInprocFutex : "inproc", 1);
}

}  // namespace seer::recorder
