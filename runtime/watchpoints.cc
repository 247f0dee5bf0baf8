// Watchpoints for sampled accesses (watchpoints.h): the slots and the budget,
// the hooks' check, the hardware slots and their self-test, the sample (arm,
// hold, disarm, write the caught race) and the SIGTRAP handler.
#include "runtime/watchpoints.h"

#include <linux/hw_breakpoint.h>
#include <linux/perf_event.h>
#include <sched.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstddef>
#include <cstdlib>

#include "runtime/access_sampler.h"
#include "runtime/libc_io.h"
#include "runtime/signal_chain.h"

namespace seer::rt {

WatchGlobals g_watch;
__thread int32_t tls_watch_countdown = 0;
__thread uint32_t tls_watch_period = 0;
__thread uint64_t tls_watch_last_ns = 0;

namespace {

// sig_data of slot i: kSigMagic + i, so that a SIGTRAP of another perf event
// (the program's own, or a debugger's) is never taken for one of ours.
constexpr uint64_t kSigMagic = 0x5ee2'0000'0000'0000ull;

// si_code of a perf event's SIGTRAP (asm-generic/siginfo.h; glibc 2.36 lacks it).
constexpr int kTrapPerf = 6;

struct alignas(64) Slot {
  int fd = -1;
  std::atomic<uint32_t> busy{0};   // claimed by a sampling thread
  std::atomic<uint64_t> begin{0};  // the watched bytes [begin, end): for the overlap check
  std::atomic<uint64_t> end{0};
  std::atomic<uint32_t> write{0};  // the sampled access writes: a read of another thread is a hit too
  std::atomic<int32_t> owner{0};   // kernel tid of the sampling thread: its own traps are not hits
  std::atomic<const ThreadState*> owner_state{nullptr};  // and its writer state, for the hooks' check
  std::atomic<uint32_t> hits{0};                         // hits of other threads since armed
  // The first hit's pc (a hook's: its return address, as recorded accesses
  // have; a trap's: the instruction after the access, x86 traps after), ring
  // (-1 when its thread records none) and kind (WatchHit; kReadOrWrite for a
  // read-write trap, decided by the value).
  std::atomic<uint64_t> hit_pc{0};
  std::atomic<int64_t> hit_ring{-1};
  std::atomic<uint8_t> hit_kind{0};
  std::atomic<uint32_t> hit_ready{0};  // the first hit's fields are stored
};
Slot g_slots[kMaxWatchSlots];

perf_event_attr WatchAttr(uint32_t slot, uint64_t addr, uint64_t len, uint32_t type) {
  perf_event_attr attr = {};
  attr.type = PERF_TYPE_BREAKPOINT;
  attr.size = sizeof(attr);
  attr.bp_type = type;
  attr.bp_addr = addr;
  attr.bp_len = len;
  attr.sample_period = 1;
  attr.disabled = 1;
  attr.inherit = 1;
  attr.inherit_thread = 1;  // threads, not forked children: a child's copy of the memory is another variable
  attr.remove_on_exec = 1;
  attr.sigtrap = 1;
  attr.sig_data = kSigMagic + slot;
  attr.exclude_kernel = 1;  // what the kernel writes for a system call is not a thread's access here
  attr.exclude_hv = 1;
  return attr;
}

int64_t Gettid() { return syscall(SYS_gettid); }

uint64_t PerfData(const siginfo_t* info) {
  // siginfo's _sigfault._perf._data (asm-generic/siginfo.h) follows si_addr;
  // glibc 2.36 has no name for it.
  uint64_t data;
  __builtin_memcpy(&data, reinterpret_cast<const char*>(&info->si_addr) + sizeof(void*), sizeof(data));
  return data;
}

// The widest aligned watch of 1, 2, 4 or 8 bytes that starts at `addr` and
// lies within [addr, addr + size): what a debug register can hold.
void WatchRange(uint64_t addr, uint64_t size, uint64_t* begin, uint64_t* len) {
  uint64_t l = 8;
  while (l > 1 && ((addr & (l - 1)) != 0 || l > size)) l >>= 1;
  *begin = addr;
  *len = l;
}

// The watched bytes' value, read with one load of their width (the runtime's
// memcpy is an interposer: it would record the read).
uint64_t ReadBytes(uint64_t addr, uint64_t len) {
  switch (len) {
    case 1: return *reinterpret_cast<const volatile uint8_t*>(addr);
    case 2: return *reinterpret_cast<const volatile uint16_t*>(addr);
    case 4: return *reinterpret_cast<const volatile uint32_t*>(addr);
    default: return *reinterpret_cast<const volatile uint64_t*>(addr);
  }
}

// The same through the kernel, for an address decoded from an instruction:
// false instead of a fault where the bytes are not mapped.
bool ReadBytesCarefully(uint64_t addr, uint64_t len, uint64_t* value) {
  *value = 0;
  iovec local = {value, len};
  iovec remote = {reinterpret_cast<void*>(addr), len};
  return process_vm_readv(getpid(), &local, 1, &remote, 1, 0) == static_cast<ssize_t>(len);
}

void Count(std::atomic<uint64_t>* counter) { counter->fetch_add(1, std::memory_order_relaxed); }

uint32_t NextCountdown(uint32_t p) {
  // Spread the samples: a period of P gives P/2 .. 3P/2 accesses between two,
  // so that a loop of a fixed length is not always sampled at the same access.
  static std::atomic<uint64_t> seed{0x9e3779b97f4a7c15ull};
  uint64_t x = seed.fetch_add(0x9e3779b97f4a7c15ull, std::memory_order_relaxed);
  x ^= x >> 31;
  x *= 0xbf58476d1ce4e5b9ull;
  x ^= x >> 29;
  return p / 2 + static_cast<uint32_t>(x % (p + 1));
}

constexpr uint32_t kMinPeriod = 16;
constexpr uint32_t kMaxPeriod = 1u << 30;

// The budget: a thread is held for delay_us at most once per min_gap_ns. The
// period doubles when samples come faster than that (and the early one is not
// taken), and halves when they come at less than half that pace, so that a
// thread is sampled about as often as the budget allows whatever its rate of
// accesses. True: take this sample.
bool WithinBudget() {
  const uint64_t now = NowNs();
  if (tls_watch_period == 0) tls_watch_period = g_watch.period;
  const uint64_t gap = now - tls_watch_last_ns;
  bool take = true;
  if (tls_watch_last_ns != 0 && gap < g_watch.min_gap_ns) {
    if (tls_watch_period < kMaxPeriod) tls_watch_period *= 2;
    take = false;
  } else if (tls_watch_last_ns != 0 && gap > 2 * g_watch.min_gap_ns && tls_watch_period > kMinPeriod) {
    tls_watch_period /= 2;
  }
  if (take) tls_watch_last_ns = now;
  tls_watch_countdown = static_cast<int32_t>(NextCountdown(tls_watch_period));
  return take;
}

}  // namespace

bool WatchTrap(int sig, siginfo_t* info, void* context) {
  if (sig != SIGTRAP || info == nullptr) return false;
  // The access sampler's timer (a POSIX timer: its value tells it apart).
  if (info->si_code == SI_TIMER) return SamplerTrap(reinterpret_cast<uint64_t>(info->si_value.sival_ptr), context);
  // A single step of the sampler's walk to an access (not ours when no walk is under way).
  if (info->si_code == TRAP_TRACE) return SamplerStep(context);
  if (info->si_code != kTrapPerf) return false;
  const uint64_t data = PerfData(info);
  if (data < kSigMagic || data >= kSigMagic + g_watch.slots) return false;
  Slot& s = g_slots[data - kSigMagic];
  const int saved_errno = errno;
  if (s.owner.load(std::memory_order_acquire) != Gettid() && s.hits.fetch_add(1, std::memory_order_acq_rel) == 0) {
    const auto* uc = static_cast<const ucontext_t*>(context);
    s.hit_pc.store(static_cast<uint64_t>(uc->uc_mcontext.gregs[REG_RIP]), std::memory_order_relaxed);
    s.hit_kind.store(
        static_cast<uint8_t>(s.write.load(std::memory_order_relaxed) != 0 ? WatchHit::kReadOrWrite : WatchHit::kWrite),
        std::memory_order_relaxed);
    const ThreadState* ts = tls_state;
    s.hit_ring.store(ts != nullptr ? static_cast<int64_t>(ts->ring) : -1, std::memory_order_relaxed);
    s.hit_ready.store(1, std::memory_order_release);
    // One hit tells the race: no trap more for this sample, however often the
    // other thread touches the bytes while the sampled one is held.
    ioctl(s.fd, PERF_EVENT_IOC_DISABLE, 0);
  }
  errno = saved_errno;
  return true;
}

void WatchCheck(uint64_t addr, uint64_t size, bool write, uint64_t pc) {
  const ThreadState* me = tls_state;
  for (uint32_t i = 0; i < g_watch.slots; ++i) {
    Slot& s = g_slots[i];
    if (s.busy.load(std::memory_order_acquire) == 0) continue;
    const ThreadState* owner = s.owner_state.load(std::memory_order_acquire);
    if (owner == nullptr || owner == me) continue;  // not armed yet, or the sampled thread itself
    if (addr >= s.end.load(std::memory_order_relaxed) || addr + size <= s.begin.load(std::memory_order_relaxed))
      continue;
    if (!write && s.write.load(std::memory_order_relaxed) == 0) continue;  // two reads do not race
    if (s.hits.fetch_add(1, std::memory_order_acq_rel) != 0) continue;
    s.hit_pc.store(pc, std::memory_order_relaxed);
    s.hit_kind.store(static_cast<uint8_t>(write ? WatchHit::kWrite : WatchHit::kRead), std::memory_order_relaxed);
    s.hit_ring.store(me != nullptr ? static_cast<int64_t>(me->ring) : -1, std::memory_order_relaxed);
    s.hit_ready.store(1, std::memory_order_release);
  }
}

void WatchForgetInChild() {
  __atomic_store_n(&g_watch.on, false, __ATOMIC_RELAXED);
  SamplerForgetInChild();
  for (uint32_t i = 0; i < g_watch.slots; ++i) {
    if (g_slots[i].fd >= 0) LibcClose(g_slots[i].fd);
    g_slots[i].fd = -1;
  }
  g_watch.slots = 0;
  g_watch.hardware = false;
}

namespace {

// Opens the hardware slots and checks that the machine delivers them: a write
// of this thread under slot 0 must count. Some hypervisors accept the debug
// registers and never fire them (seen on a Firecracker guest: perf and gdb
// alike count nothing); there the slots are closed and the hooks' software
// watchpoints and the value comparison remain. Returns 0, or why not: an errno
// of perf_event_open or sigaction, or kWatchNeverFired when the self-test counted nothing.
int OpenHardware() {
  uint32_t opened = 0;
  int err = 0;
  for (uint32_t i = 0; i < kMaxWatchSlots; ++i) {
    // A placeholder address: the slot is disabled until a sample points it.
    perf_event_attr attr = WatchAttr(i, reinterpret_cast<uint64_t>(&g_slots[i].hits), 4, HW_BREAKPOINT_W);
    const int fd = static_cast<int>(syscall(SYS_perf_event_open, &attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC));
    if (fd < 0) {
      // ENOSPC: a debugger or the program holds the other debug registers.
      if (opened == 0) err = errno;
      break;
    }
    g_slots[i].fd = fd;
    ++opened;
  }
  if (opened == 0) return err;
  g_watch.slots = opened;
  if (!InstallRuntimeSigtrap()) {
    err = errno;
  } else {
    // The self-test's trap is this thread's own: WatchTrap ignores it.
    Slot& s = g_slots[0];
    s.owner.store(static_cast<int32_t>(Gettid()), std::memory_order_relaxed);
    static volatile uint64_t probe = 0;
    perf_event_attr attr = WatchAttr(0, reinterpret_cast<uint64_t>(&probe), 8, HW_BREAKPOINT_W);
    uint64_t count = 0;
    if (ioctl(s.fd, PERF_EVENT_IOC_MODIFY_ATTRIBUTES, &attr) == 0 && ioctl(s.fd, PERF_EVENT_IOC_ENABLE, 0) == 0) {
      probe = probe + 1;
      ioctl(s.fd, PERF_EVENT_IOC_DISABLE, 0);
      if (LibcRead(s.fd, &count, sizeof(count)) != static_cast<ssize_t>(sizeof(count))) count = 0;
    }
    s.owner.store(0, std::memory_order_relaxed);
    if (count != 0) {
      g_watch.hardware = true;
      return 0;
    }
    err = kWatchNeverFired;
  }
  for (uint32_t i = 0; i < opened; ++i) {
    LibcClose(g_slots[i].fd);
    g_slots[i].fd = -1;
  }
  return err;
}

// SEER_WATCH_HARDWARE=0 in the program's environment: no debug registers, as
// on a machine that does not deliver them, so that the value comparison (or
// the hooks' software watchpoints) do all the catching on any machine (the
// tests of that path). By hand: the runtime's strcmp records.
bool HardwareTurnedOff() {
  const char* v = getenv("SEER_WATCH_HARDWARE");
  return v != nullptr && v[0] == '0' && v[1] == '\0';
}

}  // namespace

bool WatchStart(ShmHeader* h, bool attached) {
  if (h->watch_period == 0) return true;
  g_watch.shm = h;
  g_watch.period = h->watch_period;
  g_watch.delay_us = h->watch_delay_us;
  const uint64_t permille = h->watch_budget_permille != 0 ? h->watch_budget_permille : 20;
  g_watch.budget_permille = static_cast<uint32_t>(permille);
  g_watch.min_gap_ns = uint64_t{g_watch.delay_us} * 1000 * 1000 / permille;
  const int hardware_err = attached ? kWatchAttached : HardwareTurnedOff() ? kWatchTurnedOff : OpenHardware();
  // The software watches need no kernel help: as many as the hardware could
  // hold, so that both watch the same bytes.
  g_watch.slots = g_watch.hardware ? g_watch.slots : kMaxWatchSlots;
  h->watch_slots.store(g_watch.slots, std::memory_order_relaxed);
  h->watch_hardware.store(g_watch.hardware ? 1 : 0, std::memory_order_relaxed);
  h->watch_errno.store(hardware_err, std::memory_order_relaxed);
  __atomic_store_n(&g_watch.on, true, __ATOMIC_RELEASE);
  // A program without hooks (the preloaded libseer_rt.so) is sampled by a
  // timer instead; in a seer-cc build (the archives) this does nothing.
  SamplerStart(h, attached);
  return true;
}

void WatchStop() {
  ShmHeader* h = g_watch.shm;
  if (h == nullptr || !__atomic_load_n(&g_watch.on, __ATOMIC_ACQUIRE)) return;
  __atomic_store_n(&g_watch.on, false, __ATOMIC_SEQ_CST);
  const bool walks_ended = SamplerStop();
  // A thread may be holding a sample (a few hundred microseconds): its slot's
  // descriptor stays open until it has let go.
  const uint64_t deadline = NowNs() + 1000000000ull;
  for (uint32_t i = 0; i < g_watch.slots; ++i) {
    while (g_slots[i].busy.load(std::memory_order_acquire) != 0 && NowNs() < deadline) sched_yield();
    if (g_slots[i].fd >= 0 && g_slots[i].busy.load(std::memory_order_acquire) == 0) {
      LibcClose(g_slots[i].fd);
      g_slots[i].fd = -1;
    }
  }
  const bool handler_back = walks_ended && UninstallRuntimeSigtrap();
  h->watch_detach.store(handler_back ? kWatchDetachClean : kWatchDetachHandlerKept, std::memory_order_release);
}

void WatchSample(uint64_t addr, uint64_t size, bool write, uint64_t pc) {
  if (!WithinBudget()) return;
  // Not in a signal handler (the interrupted code may hold a slot), not while
  // the runtime attaches the thread, not where the thread cannot write.
  ThreadSlot slot = CurrentSlot();
  if (slot.state == nullptr || *slot.state == nullptr || slot.vars->signal_depth != 0 || slot.vars->attaching) return;
  WatchHold(*slot.state, addr, size, write, pc, /*careful=*/false);
}

void WatchHold(ThreadState* ts, uint64_t addr, uint64_t size, bool write, uint64_t pc, bool careful) {
  if (size == 0 || addr == 0) return;
  uint64_t begin, len;
  WatchRange(addr, size, &begin, &len);
  // A free slot, and none already watching these bytes.
  Slot* s = nullptr;
  for (uint32_t i = 0; i < g_watch.slots; ++i) {
    Slot& c = g_slots[i];
    if (c.busy.load(std::memory_order_relaxed) != 0 && c.begin.load(std::memory_order_relaxed) < begin + len &&
        begin < c.end.load(std::memory_order_relaxed))
      return;
    uint32_t expected = 0;
    if (s == nullptr && c.busy.compare_exchange_strong(expected, 1, std::memory_order_acquire)) s = &c;
  }
  ShmHeader* h = g_watch.shm;
  if (s == nullptr) {
    Count(&h->watch_busy);
    return;
  }
  Count(&h->watch_samples);
  const uint32_t index = static_cast<uint32_t>(s - g_slots);
  s->begin.store(begin, std::memory_order_relaxed);
  s->end.store(begin + len, std::memory_order_relaxed);
  s->owner.store(static_cast<int32_t>(Gettid()), std::memory_order_relaxed);
  s->write.store(write ? 1 : 0, std::memory_order_relaxed);
  s->hits.store(0, std::memory_order_relaxed);
  s->hit_ring.store(-1, std::memory_order_relaxed);
  s->hit_ready.store(0, std::memory_order_relaxed);
  uint64_t before = 0;
  if (careful && !ReadBytesCarefully(begin, len, &before)) {
    s->owner.store(0, std::memory_order_relaxed);
    s->busy.store(0, std::memory_order_release);
    return;
  }
  if (!careful) before = ReadBytes(begin, len);
  // Software first (the hooks see the owner once it is set), then hardware.
  s->owner_state.store(ts, std::memory_order_release);
  g_watch.armed.fetch_add(1, std::memory_order_acq_rel);
  bool hardware = false;
  if (g_watch.hardware) {
    // A sampled read races only with writes; a sampled write with both.
    const uint32_t type = write ? (HW_BREAKPOINT_R | HW_BREAKPOINT_W) : HW_BREAKPOINT_W;
    perf_event_attr attr = WatchAttr(index, begin, len, type);
    hardware =
        ioctl(s->fd, PERF_EVENT_IOC_MODIFY_ATTRIBUTES, &attr) == 0 && ioctl(s->fd, PERF_EVENT_IOC_ENABLE, 0) == 0;
  }
  timespec hold = {0, static_cast<long>(g_watch.delay_us) * 1000};
  while (SleepUnrecorded(&hold, &hold) != 0 && errno == EINTR) {
  }
  if (hardware) ioctl(s->fd, PERF_EVENT_IOC_DISABLE, 0);
  g_watch.armed.fetch_sub(1, std::memory_order_acq_rel);
  s->owner_state.store(nullptr, std::memory_order_release);
  uint64_t after = before;
  if (careful) {
    if (!ReadBytesCarefully(begin, len, &after)) after = before;  // unmapped meanwhile: no value to compare
  } else {
    after = ReadBytes(begin, len);
  }
  const uint32_t hits = s->hits.load(std::memory_order_acquire);
  // A hit counted just before the disarm may still be storing its fields.
  for (int spins = 0; hits != 0 && s->hit_ready.load(std::memory_order_acquire) == 0 && spins < 1000; ++spins)
    sched_yield();
  const uint64_t hit_pc = s->hit_pc.load(std::memory_order_relaxed);
  const int64_t hit_ring = s->hit_ring.load(std::memory_order_relaxed);
  WatchHit kind = static_cast<WatchHit>(s->hit_kind.load(std::memory_order_relaxed));
  s->owner.store(0, std::memory_order_relaxed);
  s->busy.store(0, std::memory_order_release);
  if (hits == 0 && before == after) return;
  if (hits == 0)
    kind = WatchHit::kUnseenWrite;
  else if (kind == WatchHit::kReadOrWrite && before != after)
    kind = WatchHit::kWrite;
  // kWatchHit's object is the other thread's ring (the merger names its
  // thread); ~0 when unknown.
  const uint64_t other = hits != 0 && hit_ring >= 0 ? static_cast<uint64_t>(hit_ring) : ~uint64_t{0};
  PutOrdered(ts, EventKind::kWatchSample, static_cast<uint8_t>(write ? WatchAccess::kWrite : WatchAccess::kRead), addr,
             size, pc, kGlobalDomain);
  PutOrdered(ts, EventKind::kWatchHit, static_cast<uint8_t>(kind), other, hits, hit_pc, kGlobalDomain);
  // A paused ring (--sync=none) publishes nothing else: make both visible now.
  Publish(ts, Head(ts));
  Count(&h->watch_caught);
}

}  // namespace seer::rt
