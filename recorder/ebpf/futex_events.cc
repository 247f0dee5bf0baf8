#include "recorder/ebpf/futex_events.h"

#include <algorithm>
#include <cstddef>

#include "recorder/proc_maps.h"
#include "seer/ring_layout.h"

namespace seer::recorder {

static_assert(SEER_FUTEX_REGISTER_MAGIC == rt::kFutexRegisterMagic, "bpf/sync_event.h and ring_layout.h disagree");

Status FutexEvents::Open(pid_t tgid, uint64_t ringbuf_bytes) {
  tgid_ = tgid;
  return probes_.OpenFutexOnly(tgid, ringbuf_bytes);
}

void FutexEvents::UpdateMaps() {
  std::vector<Mapping> maps;
  if (!ReadProcMaps(tgid_, &maps).ok()) return;
  const Mapping* libc = FindMappedFile(maps, "libc.so");
  if (libc == nullptr) return;
  libc_ = libc->path;
  filter_.Add(libc_, maps);
}

int64_t FutexEvents::RingOf(const rt::ShmHeader* shm, pid_t tid) {
  auto it = rings_.find(tid);
  if (it != rings_.end()) return it->second;
  // A thread not seen yet: its ring names it since the thread started.
  const uint32_t n = std::min(shm->next_ring.load(std::memory_order_acquire), shm->max_rings);
  const rt::RingDesc* descs = rt::RingDescs(const_cast<rt::ShmHeader*>(shm));
  int64_t found = -1;
  // A reused kernel tid may name an ended thread's ring too: the ring of a
  // thread that has not ended wins (rings are reused, so the index says nothing).
  for (uint32_t r = 0; r < n; ++r) {
    if (descs[r].os_tid != tid) continue;
    const uint32_t state = descs[r].state.load(std::memory_order_acquire);
    if (state == rt::kRingClaimed || state == rt::kRingRunning || found < 0) found = r;
  }
  if (found >= 0) rings_[tid] = static_cast<uint32_t>(found);
  return found;
}

Status FutexEvents::Resume(const rt::ShmHeader* shm, uint64_t header_in_target) {
  // Attached first: a thread that registers from now on is seen doing it; one
  // that registered before wrote its os_tid and state before its call.
  Status st = probes_.AttachSyscallPrograms();
  if (!st.ok()) return st;
  const uint32_t n = std::min(shm->next_ring.load(std::memory_order_acquire), shm->max_rings);
  const rt::RingDesc* descs = rt::RingDescs(const_cast<rt::ShmHeader*>(shm));
  const uint64_t descs_in_target = header_in_target + sizeof(rt::ShmHeader);
  for (uint32_t r = 0; r < n; ++r) {
    if (descs[r].state.load(std::memory_order_acquire) != rt::kRingRunning || descs[r].os_tid <= 0) continue;
    // The counter is the thread's writer state, at the start of RingDesc::producer.
    st = probes_.RegisterCounter(descs[r].os_tid,
                                 descs_in_target + r * sizeof(rt::RingDesc) + offsetof(rt::RingDesc, producer));
    if (!st.ok()) return st;
  }
  return Status::Ok();
}

Status FutexEvents::Take(const rt::ShmHeader* shm, std::vector<FutexEvent>* out) {
  return probes_.Poll(0, [&](const sync_event& e) {
    if (e.kind == SEER_EV_THREAD_EXIT) {
      rings_.erase(static_cast<pid_t>(e.tid));  // its tid may come back as another thread
      return;
    }
    if ((e.kind != SEER_EV_SIGNAL && e.kind != SEER_EV_WAIT) || e.mode != SEER_MODE_FUTEX) return;
    if (!filter_.ready()) UpdateMaps();
    // A call from libc's syscall() was recorded by the runtime's interposer
    // (runtime/interpose_futex.cc); any other call from libc is part of a
    // pthread or semaphore call the runtime recorded.
    if (filter_.ready() && filter_.IsLibcCode(e.pc)) {
      ++libc_internal_;
      return;
    }
    const int64_t ring = RingOf(shm, static_cast<pid_t>(e.tid));
    if (ring < 0 || e.stamp == SEER_STAMP_NONE) {
      ++unplaced_;
      return;
    }
    FutexEvent f;
    f.ring = static_cast<uint32_t>(ring);
    f.word = e.stamp;
    f.number = number_++;
    f.event.kind = e.kind == SEER_EV_SIGNAL ? EventKind::kSignal : EventKind::kWait;
    f.event.object = e.object;
    f.event.pc = e.pc;
    out->push_back(f);
  });
}

}  // namespace seer::recorder
