// Start-up, thread attach/detach, attach mode and fatal signals: the slow paths
// behind rt_state.h (a full ring is ring_overflow.cc's). Nothing here runs per access.
#include "runtime/rt_state.h"

#include <link.h>
#include <linux/futex.h>
#include <pthread.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <new>

#include "runtime/access_sampler.h"
#include "runtime/fuzz_scheduler.h"
#include "runtime/libc_io.h"
#include "runtime/mutex_order.h"
#include "runtime/signal_chain.h"
#include "runtime/watchpoints.h"

namespace seer::rt {

Globals g_rt;
namespace {
// The attach point of a process without one: nobody ever asks it.
AttachPoint no_attach_point;
}  // namespace
// Attach mode (ring_layout.h, AttachPoint): the page a recorder finds the
// program by; no_attach_point when there is none, so that the gates need not
// test for null. Constant-initialised: hooks may run before the runtime's
// constructor.
AttachPoint* g_attach_point = &no_attach_point;
bool (*g_start_detach_watcher)() = nullptr;
OrderCounter g_order[kFirstAtomicDomain];
std::atomic<uint32_t> g_mutex_domains{0};
__thread ThreadState* tls_state = nullptr;
__thread ThreadVars tls_vars = {};
__thread bool tls_shared = false;
__thread int32_t tls_owner_tid = 0;

namespace {

std::atomic<int> init_state{0};  // 0 not started, 1 running, 2 done
pthread_key_t thread_end_key;

// The memfd behind g_attach_point (-1 when there is none: the program was
// launched with an area, or could not make one), which the recorder grows to
// hold the area.
int attach_fd = -1;

std::atomic<int> activate_state{0};          // 0 not asked, 1 mapping, 2 recording, 3 refused
std::atomic<uint64_t> next_pid_check_ns{0};  // RecorderGone asks the kernel at most this often

// The static TLS blocks of the modules loaded at start-up, as offsets from the
// thread pointer: glibc lays out every thread's static TLS alike, so a starting
// thread finds its blocks without calling into the loader (dl_iterate_phdr
// takes the loader's lock, at a point where the thread may hold others).
// Modules loaded later by dlopen get dynamic TLS and are not described.
struct StaticTls {
  intptr_t offset;  // block address - thread pointer
  uint64_t size;    // PT_TLS p_memsz
  uint64_t image;   // run-time address of the module's TLS image: names the module
};
constexpr int kMaxStaticTls = 32;
StaticTls static_tls[kMaxStaticTls];
int static_tls_count = 0;
uint64_t static_tls_tp = 0;  // the thread pointer of the thread that read them

int NoteStaticTls(dl_phdr_info* info, size_t, void*) {
  static_tls_tp = reinterpret_cast<uint64_t>(__builtin_thread_pointer());
  if (info->dlpi_tls_data == nullptr) return 0;  // no TLS, or not allocated in this thread
  for (int i = 0; i < info->dlpi_phnum && static_tls_count < kMaxStaticTls; ++i) {
    const ElfW(Phdr)& ph = info->dlpi_phdr[i];
    if (ph.p_type != PT_TLS || ph.p_memsz == 0) continue;
    static_tls[static_tls_count++] = {
        static_cast<char*>(info->dlpi_tls_data) - static_cast<char*>(__builtin_thread_pointer()), ph.p_memsz,
        info->dlpi_addr + ph.p_vaddr};
  }
  return 0;
}

// The calling thread's stack (for non-main threads, glibc's whole stack block,
// static TLS included). The query allocates (glibc's pthread_getattr_np
// reallocs a cpu set, and reads /proc/self/maps through stdio for the main
// thread): those blocks are the runtime's, so the interposers must not record
// them. They find no thread state, and the attaching flag stops them claiming one.
bool ThreadStack(uint64_t* addr, uint64_t* size) {
  ThreadState* const saved_state = tls_state;
  const bool saved_attaching = tls_vars.attaching;
  tls_state = nullptr;
  tls_vars.attaching = true;
  bool ok = false;
  pthread_attr_t attr;
  if (pthread_getattr_np(pthread_self(), &attr) == 0) {
    void* a = nullptr;
    size_t n = 0;
    ok = pthread_attr_getstack(&attr, &a, &n) == 0 && n > 0;
    *addr = reinterpret_cast<uint64_t>(a);
    *size = n;
    pthread_attr_destroy(&attr);
  }
  tls_state = saved_state;
  tls_vars.attaching = saved_attaching;
  return ok;
}

const int kFatalSignals[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGTRAP, SIGSYS};

// A dying process loses nothing that reached its rings: once it is gone the
// drainer reads how far each thread wrote from its descriptor (WrittenWords),
// published or not. The handler only says which signal killed it, then lets
// the default action run.
void OnFatalSignal(int sig) {
  if (g_rt.shm != nullptr) g_rt.shm->fatal_signal.store(sig, std::memory_order_release);
  signal(sig, SIG_DFL);
  RaiseUnrecorded(sig);
}

void InstallSignalHandlers() {
  for (int sig : kFatalSignals) {
    struct sigaction old;
    if (sigaction(sig, nullptr, &old) != 0) continue;
    // A handler the program installed before us stays; it decides what happens.
    if (old.sa_handler != SIG_DFL) continue;
    struct sigaction sa = {};
    sa.sa_handler = OnFatalSignal;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESTART;
    sigaction(sig, &sa, nullptr);
  }
}

}  // namespace

bool IsRuntimeSignalHandler(const void* fn) { return fn == reinterpret_cast<const void*>(OnFatalSignal); }

void RestoreSignalHandlers() {
  for (int sig : kFatalSignals) {
    struct sigaction now;
    if (sigaction(sig, nullptr, &now) != 0 || (now.sa_flags & SA_SIGINFO) != 0 || now.sa_handler != OnFatalSignal)
      continue;  // the program's own since
    struct sigaction dfl = {};
    dfl.sa_handler = SIG_DFL;
    sigaction(sig, &dfl, nullptr);
  }
}

namespace {

// One page in a close-on-exec memfd: all a program pays until someone records it.
void CreateAttachPoint() {
  const int fd = memfd_create(kAttachName, MFD_CLOEXEC);
  if (fd < 0) return;
  void* p = MAP_FAILED;
  if (ftruncate(fd, static_cast<off_t>(kAttachAreaOffset)) == 0)
    p = mmap(nullptr, kAttachAreaOffset, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (p == MAP_FAILED) {
    LibcClose(fd);
    return;
  }
  auto* a = new (p) AttachPoint();
  a->version = kAttachVersion;
  // Last: a recorder that finds the magic finds the rest.
  __atomic_store_n(&a->magic, kAttachMagic, __ATOMIC_RELEASE);
  attach_fd = fd;
  g_attach_point = a;
}

void FinishThread(bool free_stack) {
  SamplerThreadEnds();
  FinishSlot(CurrentSlot(), free_stack, reinterpret_cast<uint64_t>(__builtin_return_address(0)));
}

// Runs late in thread exit (after C++ thread_local destructors). Re-arming the
// key until the last round lets other keys' destructors run before us.
void OnThreadExit(void* value) {
  const uintptr_t round = reinterpret_cast<uintptr_t>(value);
  if (round < PTHREAD_DESTRUCTOR_ITERATIONS) {
    pthread_setspecific(thread_end_key, reinterpret_cast<void*>(round + 1));
    return;
  }
  FinishThread(/*free_stack=*/true);
}

// Checks the area at `h` (`bytes` of it mapped) and claims it for this process.
bool ClaimArea(ShmHeader* h, uint64_t bytes) {
  const bool valid = bytes >= sizeof(ShmHeader) && h->magic == kShmMagic && h->version == kShmVersion &&
                     h->ring_words != 0 && (h->ring_words & (h->ring_words - 1)) == 0 &&
                     ShmBytes(h->max_rings, h->ring_words) <= bytes;
  int64_t expected = 0;
  return valid && h->owner_pid.compare_exchange_strong(expected, getpid());
}

// Maps the area in memfd `fd` and claims it; the mapping outlives the descriptor.
// The forked child of an injected process gets its area laid out as an attach
// memfd (ring_layout.h, AttachPoint::children_socket): the page first, the
// header at kAttachAreaOffset. The page becomes its attach point and `fd`
// attach_fd (kept open: the caller must not close it), so that the attached
// process's machinery ends its recording too: RecorderGone reads the page's
// state and the recorder's pid, the detach watcher puts the calls back.
bool MapArea(int fd) {
  struct stat st;
  if (fstat(fd, &st) != 0 || st.st_size < static_cast<off_t>(sizeof(ShmHeader))) return false;
  void* p = mmap(nullptr, st.st_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (p == MAP_FAILED) return false;
  auto* page = static_cast<AttachPoint*>(p);
  const bool attach_layout = g_rt.injected && static_cast<uint64_t>(st.st_size) > kAttachAreaOffset &&
                             __atomic_load_n(&page->magic, __ATOMIC_ACQUIRE) == kAttachMagic &&
                             page->version == kAttachVersion;
  const uint64_t offset = attach_layout ? kAttachAreaOffset : 0;
  auto* h = reinterpret_cast<ShmHeader*>(static_cast<char*>(p) + offset);
  if (!ClaimArea(h, static_cast<uint64_t>(st.st_size) - offset)) {
    munmap(p, st.st_size);
    return false;
  }
  g_rt.shm = h;
  g_rt.hold_times = (h->options & kOptionHoldTimes) != 0;
  g_rt.watch_only = (h->options & kOptionWatchOnly) != 0;
  if (attach_layout) {
    g_attach_point = page;
    attach_fd = fd;
    // Injected: the interposers record; its environment says nothing. The
    // futex tracepoints were loaded for the first process only.
    g_rt.sync_inproc = true;
    g_rt.futex_stamps = false;
    g_rt.repeat_marks = (h->options & kOptionRepeatMarks) != 0;
    return true;
  }
  const char* sync = getenv(kSyncEnv);
  g_rt.sync_inproc = sync != nullptr && sync[0] == 'i';  // "inproc"
  // Compared by hand: the runtime's own strcmp is an interposer.
  bool futex = sync != nullptr;
  for (size_t i = 0; futex; ++i) {
    if (sync[i] != kSyncInprocFutex[i]) futex = false;
    if (kSyncInprocFutex[i] == '\0') break;
  }
  g_rt.futex_stamps = futex;
  g_rt.repeat_marks = (h->options & kOptionRepeatMarks) != 0 && !futex;
  return true;
}

// The area the recorder made before launching the program (SEER_RT_SHM_FD).
bool MapSharedArea() {
  const char* fd_text = getenv(kShmFdEnv);
  if (fd_text == nullptr || *fd_text == '\0') return false;
  char* end = nullptr;
  const long fd = strtol(fd_text, &end, 10);
  if (*end != '\0' || fd < 0) return false;
  return MapArea(static_cast<int>(fd));
}

// A process of the recording's family that the area it inherited is not for
// asks the recorder for one of its own (ring_layout.h, ChildRequest) and maps
// it. False when there is no recorder to ask, or it refused. Raw system calls:
// the runtime's socket interposers model the program's sockets, not this one.
// `path`: the recorder's socket, from the environment (kChildrenEnv) or, in an
// injected process, from its attach page (AttachPoint::children_socket).
bool MapChildArea(uint32_t how, const char* path) {
  if (path == nullptr || *path == '\0') return false;
  sockaddr_un addr = {};
  addr.sun_family = AF_UNIX;
  for (size_t i = 0; path[i] != '\0'; ++i) {
    if (i + 1 >= sizeof addr.sun_path) return false;
    addr.sun_path[i] = path[i];
  }
  const int s = static_cast<int>(syscall(SYS_socket, AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0));
  if (s < 0) return false;
  // A recorder that stopped answering must not hang the program for long.
  const timeval timeout = {5, 0};
  syscall(SYS_setsockopt, s, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
  const ChildRequest request = {kChildMagic, kShmVersion, how, static_cast<int64_t>(getppid())};
  int fd = -1;
  if (syscall(SYS_connect, s, &addr, sizeof addr) == 0 &&
      syscall(SYS_sendto, s, &request, sizeof request, MSG_NOSIGNAL, nullptr, 0) == sizeof request) {
    char answer = 0;
    alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int))] = {};
    iovec iov = {&answer, 1};
    msghdr msg = {};
    msg.msg_iov = &iov;
    msg.msg_iovlen = 1;
    msg.msg_control = control;
    msg.msg_controllen = sizeof control;
    if (syscall(SYS_recvmsg, s, &msg, MSG_CMSG_CLOEXEC) == 1 && answer == 1) {
      const cmsghdr* c = CMSG_FIRSTHDR(&msg);
      if (c != nullptr && c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS)
        __builtin_memcpy(&fd, CMSG_DATA(c), sizeof fd);
    }
  }
  LibcClose(s);
  if (fd < 0) return false;
  const bool mapped = MapArea(fd);
  if (fd != attach_fd) LibcClose(fd);
  return mapped;
}

// Lets the recorder read the module map while every library the process
// needs is loaded (bounded): even a process that exits at once has one.
void WaitForModuleMap() {
  const uint64_t deadline = NowNs() + 1000000000ull;
  while (g_rt.shm->modules_read.load(std::memory_order_acquire) == 0 && NowNs() < deadline) {
    timespec pause = {0, 50000};
    SleepUnrecorded(&pause, nullptr);
  }
}

// A forked child of a recorded process that names its recorder's socket
// (`children_socket`): records into an area of its own, a trace of its own
// (ring_layout.h, ChildRequest), from the fork on. Its one thread starts as an
// attached process's threads do (no fork event, locks it holds released
// without their acquire: the recorder filters those). The child of an
// injected process inherits the redirected GOT slots (its memory is a copy),
// so its calls reach the interposers already; its area is an attach memfd
// (MapArea), and a detach watcher of its own (g_start_detach_watcher, the same
// as its parent's) puts the calls back when the recorder detaches it or dies:
// it then runs on unrecorded, never waiting for a recorder that is gone.
// Chosen over a check of the recorder's pid alone: the child's recording ends
// exactly as the injected process's does, through the code that ends that one
// (a full ring gives up at once, MakeRoom; a thread stops at its next
// synchronisation call, AtSyncCallSlow), the recorder can end it at its Stop
// without a signal and know when it has (AttachPoint::restored), and the child
// runs on at full speed rather than through an interposer per call.
bool RecordForkedChild(const char* children_socket) {
  // The parent's numbers are not the child's: its domains start afresh.
  for (OrderCounter& c : g_order) c.next.store(0, std::memory_order_relaxed);
  ResetAtomicOrderInChild();
  if (!MapChildArea(kChildForked, children_socket)) return false;
  WaitForModuleMap();
  __atomic_store_n(&g_rt.active, true, __ATOMIC_RELEASE);
  AttachThread();  // without a ring, counted in the child's area as the launched program's threads are
  // Without the watcher the child still stops writing at the detach (its
  // hooks read the page: AtSyncCallSlow, MakeRoom), its calls left redirected.
  if (attach_fd >= 0 && g_start_detach_watcher != nullptr) g_start_detach_watcher();
  return true;
}

// A forked child shares the parent's rings and attach page through its
// mappings: it must not write to them. The child of a launched recording asks
// the recorder for rings of its own, and so does the child of a process
// recorded by injection whose recorder named its socket in the attach page
// and has not detached; the child of a program never recorded gets an attach
// point of its own; the child of a program built with seer-cc and attached by
// `seer record -p` (no recorder to ask) stays unrecorded.
void OnForkChild() {
  ShmHeader* const parents = g_rt.shm;  // still mapped: the parent's, shared
  const bool recorded = parents != nullptr;
  // Copied before the page goes: the child's area is not the parent's.
  char injected_socket[sizeof(AttachPoint::children_socket)] = {};
  if (recorded && g_rt.injected && attach_fd >= 0 && __atomic_load_n(&g_rt.active, __ATOMIC_ACQUIRE) &&
      g_attach_point->state.load(std::memory_order_acquire) == kAttachRequested) {
    for (size_t i = 0; i + 1 < sizeof injected_socket && g_attach_point->children_socket[i] != '\0'; ++i)
      injected_socket[i] = g_attach_point->children_socket[i];
  }
  g_rt.active = false;
  WatchForgetInChild();
  tls_state = nullptr;
  // The child is one thread with the TLS block it forked from: its own now.
  tls_shared = false;
  tls_vars = {};
  if (attach_fd >= 0) {
    munmap(g_attach_point, kAttachAreaOffset);
    LibcClose(attach_fd);
    g_attach_point = &no_attach_point;
    attach_fd = -1;
    if (!recorded) {
      CreateAttachPoint();
      return;
    }
    if (injected_socket[0] != '\0') {
      g_rt.shm = nullptr;  // the parent's
      if (RecordForkedChild(injected_socket)) return;
    }
  } else if (recorded) {
    g_rt.shm = nullptr;  // the parent's
    if (RecordForkedChild(getenv(kChildrenEnv))) return;
  }
  if (recorded) parents->forks_unrecorded.fetch_add(1, std::memory_order_relaxed);
  tls_vars.finished = true;
}

// Attach mode, once the recorder asked: maps the area it laid out behind the
// attach page. One thread maps; the others find the runtime active on a later hook.
bool ActivateAttached() {
  int expected = 0;
  if (!activate_state.compare_exchange_strong(expected, 1)) return expected == 2;
  struct stat st;
  void* p = MAP_FAILED;
  if (fstat(attach_fd, &st) == 0 && static_cast<uint64_t>(st.st_size) > kAttachAreaOffset)
    p = mmap(nullptr, st.st_size, PROT_READ | PROT_WRITE, MAP_SHARED, attach_fd, 0);
  auto* h = p == MAP_FAILED ? nullptr : reinterpret_cast<ShmHeader*>(static_cast<char*>(p) + kAttachAreaOffset);
  if (h == nullptr || !ClaimArea(h, static_cast<uint64_t>(st.st_size) - kAttachAreaOffset)) {
    if (p != MAP_FAILED) munmap(p, st.st_size);
    activate_state.store(3);  // a recorder of another version: never retried
    return false;
  }
  g_rt.shm = h;
  g_rt.hold_times = (h->options & kOptionHoldTimes) != 0;
  g_rt.watch_only = (h->options & kOptionWatchOnly) != 0;
  // Injected: the interposers record; else the recorder's probes do.
  g_rt.sync_inproc = g_rt.injected;
  InstallSignalHandlers();
  __atomic_store_n(&g_rt.active, true, __ATOMIC_RELEASE);
  activate_state.store(2);
  return true;
}

}  // namespace

bool ActivateInjected(bool futex_stamps) {
  if (attach_fd < 0 || g_attach_point->state.load(std::memory_order_acquire) != kAttachRequested) return false;
  g_rt.injected = true;
  g_rt.futex_stamps = futex_stamps;
  return ActivateAttached();
}

uint64_t NowNs() {
  timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return static_cast<uint64_t>(t.tv_sec) * 1000000000ull + t.tv_nsec;
}

bool RecorderGone(bool check_pid) {
  AttachPoint* a = g_attach_point;
  if (attach_fd < 0 || g_rt.shm == nullptr) return false;  // launched: the recorder is our parent
  if (a->state.load(std::memory_order_acquire) == kAttachDetached) return true;
  if (!check_pid) return false;
  // A stalled thread comes here for every record it drops: one syscall per 10 ms, not per record.
  const uint64_t now = NowNs();
  if (now < next_pid_check_ns.load(std::memory_order_relaxed)) return false;
  next_pid_check_ns.store(now + 10000000ull, std::memory_order_relaxed);
  const int64_t pid = a->recorder_pid.load(std::memory_order_relaxed);
  if (pid <= 0 || kill(static_cast<pid_t>(pid), 0) == 0 || errno != ESRCH) return false;
  a->state.store(kAttachDetached, std::memory_order_release);
  return true;
}

void StopRecording() {
  __atomic_store_n(&g_rt.active, false, __ATOMIC_RELAXED);
  const ThreadSlot slot = CurrentSlot();
  if (slot.state == nullptr) return;
  *slot.state = nullptr;
  slot.vars->finished = true;
}

void Initialize() {
  int expected = 0;
  if (!init_state.compare_exchange_strong(expected, 1)) {
    while (init_state.load() != 2) sched_yield();
    return;
  }
  // A program exec'd by a recorded process finds the area it inherited taken.
  const bool launched = MapSharedArea() || MapChildArea(kChildExeced, getenv(kChildrenEnv));
  if (launched) {
    WaitForModuleMap();
  } else {
    CreateAttachPoint();
    FuzzInitialize();  // seer fuzz: never while recording
  }
  if (launched || attach_fd >= 0) {
    // Read now even if no recorder ever attaches: at attach time the first hook
    // may run anywhere (the loader's lock held, in a signal handler).
    dl_iterate_phdr(NoteStaticTls, nullptr);
    pthread_key_create(&thread_end_key, OnThreadExit);
    pthread_atfork(nullptr, nullptr, OnForkChild);
  }
  if (launched) {
    InstallSignalHandlers();
    // Before the program makes a thread: the watchpoints reach every thread
    // created after them (watchpoints.h).
    WatchStart(g_rt.shm, /*attached=*/false);
    g_rt.active = true;
    AttachThread();
  }
  init_state.store(2);
}

void ReleaseRing(uint32_t ring, uint32_t bits) {
  ShmHeader* h = g_rt.shm;
  const uint32_t before = RingDescs(h)[ring].released.fetch_or(bits, std::memory_order_acq_rel);
  if ((before & kReleaseLetGo) != kReleaseLetGo && ((before | bits) & kReleaseLetGo) == kReleaseLetGo)
    h->coming_rings.fetch_add(1, std::memory_order_release);
}

void SkipThread() { tls_vars.finished = true; }

void ForgetRecordingInChild() { OnForkChild(); }

namespace {

// A ring the recorder gave back (kRingReturned), now kRingClaimed; -1 when
// none is back. Taking one of the header's count first entitles the thread to
// one such ring, which the scan then finds (others may take the first it sees).
int32_t TakeReturnedRing(ShmHeader* h) {
  uint32_t n = h->returned_rings.load(std::memory_order_acquire);
  do {
    if (n == 0) return -1;
  } while (!h->returned_rings.compare_exchange_weak(n, n - 1, std::memory_order_acquire));
  RingDesc* descs = RingDescs(h);
  // Bounded all the same: a program that wrote over the descriptors must not
  // hang here.
  for (int pass = 0; pass < 64; ++pass) {
    uint32_t rings = h->next_ring.load(std::memory_order_relaxed);
    if (rings > h->max_rings) rings = h->max_rings;
    for (uint32_t r = 0; r < rings; ++r) {
      uint32_t state = kRingReturned;
      if (descs[r].state.load(std::memory_order_relaxed) == kRingReturned &&
          descs[r].state.compare_exchange_strong(state, kRingClaimed, std::memory_order_acquire))
        return static_cast<int32_t>(r);
    }
  }
  return -1;
}

// Set when a thread waited wait_ns for a returned ring in vain (the threads
// that will give theirs back run on): later threads do not wait until a claim
// succeeds again.
std::atomic<bool> ring_wait_failed{false};

// No ring left: while a ring is coming (ShmHeader::coming_rings: its thread is
// detached or joined), the recorder gives it back once the thread has ended and
// its records are merged: waits for it (wait_ns at most, as for room in a
// ring). The recorder merges and looks even when nothing new is written while
// threads wait (ShmHeader::ring_waiters). None coming (every ring held by a
// thread that may yet be joined): -1 at once.
int32_t WaitForReturnedRing(ShmHeader* h) {
  if (ring_wait_failed.load(std::memory_order_relaxed)) return -1;
  h->ring_waiters.fetch_add(1, std::memory_order_relaxed);
  const uint64_t deadline = NowNs() + h->wait_ns;
  int32_t ring = -1;
  for (;;) {
    // Read before looking: the recorder counts a ring returned before it stops
    // counting it as coming, so a ring that went back meanwhile is seen by the look.
    const bool coming = h->coming_rings.load(std::memory_order_acquire) != 0;
    ring = TakeReturnedRing(h);
    if (ring >= 0 || !coming) break;
    if (NowNs() >= deadline || RecorderGone(/*check_pid=*/true)) {
      ring_wait_failed.store(true, std::memory_order_relaxed);
      break;
    }
    timespec pause = {0, 100000};
    SleepUnrecorded(&pause, nullptr);
  }
  h->ring_waiters.fetch_sub(1, std::memory_order_relaxed);
  return ring;
}

}  // namespace

int32_t ClaimRing(int32_t parent, uint32_t released) {
  ShmHeader* h = g_rt.shm;
  int32_t ring = -1;
  // A never-used ring first (one atomic add; a returned one takes a scan),
  // then, once every ring was used, the returned ones.
  if (h->next_ring.load(std::memory_order_relaxed) < h->max_rings) {
    const uint32_t fresh = h->next_ring.fetch_add(1, std::memory_order_relaxed);
    if (fresh < h->max_rings) ring = static_cast<int32_t>(fresh);
  }
  if (ring < 0) ring = TakeReturnedRing(h);
  if (ring < 0 && (h->options & kOptionReuseRings) != 0) ring = WaitForReturnedRing(h);
  if (ring < 0) {
    h->no_ring_threads.fetch_add(1, std::memory_order_relaxed);
    return -1;
  }
  ring_wait_failed.store(false, std::memory_order_relaxed);
  // A returned ring still names its last thread: the handle goes before the
  // release bits, so that RingOfThread never pairs the old handle with bits
  // that say "not joined".
  RingDesc* d = &RingDescs(h)[ring];
  d->parent = parent;
  d->os_tid = 0;
  d->pthread_handle = 0;
  d->serial.store(static_cast<uint32_t>(h->claims.fetch_add(1, std::memory_order_relaxed)), std::memory_order_relaxed);
  d->released.store(released, std::memory_order_release);
  d->state.store(kRingClaimed, std::memory_order_release);
  return ring;
}

ThreadState* StartBareThread(uint32_t ring, int32_t glibc_tid, bool register_counter, uint64_t pc) {
  ThreadState* ts = OpenRing(g_rt.shm, ring);
  ts->repeat_marks = g_rt.repeat_marks;
  RingDesc* d = ts->desc;
  ts->os_tid = glibc_tid;
  d->os_tid = static_cast<int32_t>(syscall(SYS_gettid));
  // A thread sharing its TLS block has its owner's pthread_self(): no handle
  // a pthread_join could name.
  d->pthread_handle = tls_shared ? 0 : static_cast<uint64_t>(pthread_self());
  d->state.store(kRingRunning, std::memory_order_release);
  if (register_counter) {
    // The eBPF probes stamp each of this thread's sync events with how many
    // words the thread had written when the event happened, read from its
    // cursor and origin: exact even between publications of the head.
    if (!g_rt.sync_inproc) __seer_register_access_counter(reinterpret_cast<const uint64_t*>(ts));
    // The same for the futex tracepoints, without a uprobe: a wake of nobody
    // that the tracepoint recognises by its val3 (ring_layout.h).
    if (g_rt.futex_stamps) LibcSyscall()(SYS_futex, ts, FUTEX_WAKE_PRIVATE, 0, nullptr, nullptr, kFutexRegisterMagic);
  }
  if (g_rt.sync_inproc) PutOrdered(ts, EventKind::kThreadBegin, 0, 0, 0, pc);
  return ts;
}

void EndBareThread(ThreadState* ts, uint64_t pc) {
  if (g_rt.sync_inproc) PutOrdered(ts, EventKind::kThreadEnd, 0, 0, 0, pc);
  Publish(ts, Head(ts));
  ts->desc->state.store(kRingEnded, std::memory_order_release);
  ReleaseRing(ts->ring, kReleaseEnded);
}

void FinishSlot(ThreadSlot slot, bool free_stack, uint64_t pc) {
  if (slot.state == nullptr) return;
  ThreadState* ts = *slot.state;
  if (ts == nullptr) {
    // A thread whose own ring never opened may still have a signal ring.
    if (slot.vars->signal_state != nullptr) EndBareThread(slot.vars->signal_state, pc);
    slot.vars->signal_state = nullptr;
    return;
  }
  uint64_t addr, size;
  // The thread's stack (and the static TLS glibc keeps at its top) becomes
  // memory that a later thread may reuse: a fresh identity from here on. (A
  // thread sharing its TLS block has no stack of its own that glibc knows.)
  // Its signal handlers come before its stack's free and its end, so before
  // whoever joins it: PutOrdered waits for those that ran (WaitForHandlers).
  if (free_stack && !tls_shared && ThreadStack(&addr, &size)) PutOrdered(ts, EventKind::kFree, 0, addr, size, pc);
  EndBareThread(ts, pc);
  // Its signal handlers' ring ends with it (unless a handler is ending the thread).
  ThreadState* sig = slot.vars->signal_state;
  if (sig != nullptr && sig != ts) EndBareThread(sig, pc);
  slot.vars->signal_state = nullptr;
  *slot.state = nullptr;
  slot.vars->finished = true;
}

ThreadState* StartThread(uint32_t ring, int32_t parent) {
  (void)parent;
  const uint64_t pc = reinterpret_cast<uint64_t>(__builtin_return_address(0));
  uint64_t stack_addr = 0, stack_size = 0;
  const bool have_stack = ThreadStack(&stack_addr, &stack_size);  // before tls_state: see ThreadStack
  ThreadState* ts = StartBareThread(ring, static_cast<int32_t>(syscall(SYS_gettid)), /*register_counter=*/true, pc);
  tls_state = ts;
  // The thread's own memory, for reports ("Location is stack of thread T1"):
  // a fresh identity too, like any allocation. The TLS blocks come after the
  // stack, which holds them in non-main threads: the later, smaller block is
  // the one that describes an address in both.
  if (have_stack)
    PutOrdered(ts, EventKind::kAlloc, static_cast<uint8_t>(AllocRegion::kStack), stack_addr, stack_size, pc);
  const uint64_t tp = reinterpret_cast<uint64_t>(__builtin_thread_pointer());
  for (int i = 0; i < static_tls_count; ++i) {
    const uint64_t block = tp + static_tls[i].offset, size = static_tls[i].size;
    // In another thread a block must lie in the stack block, where glibc keeps
    // static TLS: a module given dynamic TLS (dlopen'ed before start-up) has no
    // fixed offset, and a wrong range would make live memory fresh.
    const bool in_stack =
        have_stack && size <= stack_size && block >= stack_addr && block - stack_addr <= stack_size - size;
    if (tp != static_tls_tp && !in_stack) continue;
    PutOrdered(ts, EventKind::kAlloc, static_cast<uint8_t>(AllocRegion::kTls), block, size, static_tls[i].image);
  }
  pthread_setspecific(thread_end_key, reinterpret_cast<void*>(1));
  SamplerThreadStarts();  // a program without hooks: its timer (access_sampler.h)
  return ts;
}

namespace {

// AttachThread past its gate: the runtime records, or a recorder asked it to.
// In attach mode only a pthread call starts a thread (AttachThreadAtSyncCall).
SEER_RT_NOINLINE ThreadState* StartRecordingThread(bool at_sync_call) {
  // A thread sharing its TLS block: its own state is in the shared-TLS table.
  const ThreadSlot slot = CurrentSlot();
  if (slot.state == nullptr) return nullptr;
  if (*slot.state != nullptr) return *slot.state;
  ThreadVars* vars = slot.vars;
  // Injected, every hook is an interposed sync or allocation call.
  if (vars->finished || vars->attaching || (attach_fd >= 0 && !at_sync_call && !g_rt.injected)) return nullptr;
  if (!__atomic_load_n(&g_rt.active, __ATOMIC_ACQUIRE)) {
    vars->attaching = true;
    const bool started = ActivateAttached();
    vars->attaching = false;
    if (!started) return nullptr;
  }
  vars->attaching = true;
  ThreadState* ts = nullptr;
  // Nobody created it through the runtime: no creator writes to its
  // descriptor. One sharing a TLS block is never joined by pthread_join.
  const int32_t ring = ClaimRing(-1, tls_shared ? kReleaseCreated | kReleaseJoined : kReleaseCreated);
  if (ring < 0)
    vars->finished = true;  // counted in no_ring_threads; do not retry on every access
  else if (tls_shared)
    ts = *slot.state =
        StartBareThread(static_cast<uint32_t>(ring), tls_owner_tid, /*register_counter=*/true, SEER_RT_CALLER_PC());
  else
    ts = StartThread(static_cast<uint32_t>(ring), -1);
  vars->attaching = false;
  return ts;
}

}  // namespace

ThreadState* AttachThread() {
  // Every hook of a program not recording comes here: past the active flag, one
  // load of the attach page says that no recorder asked. No frame is set up for it.
  return RecordingWanted() ? StartRecordingThread(/*at_sync_call=*/false) : nullptr;
}

ThreadState* AttachThreadAtSyncCall() {
  return RecordingWanted() ? StartRecordingThread(/*at_sync_call=*/true) : nullptr;
}

void AtSyncCallSlow() {
  ThreadState* ts = tls_state;
  if (ts == nullptr && tls_shared) {
    const ThreadSlot slot = CurrentSlot();
    ts = slot.state != nullptr ? *slot.state : nullptr;
  }
  if (ts == nullptr) {
    AttachThreadAtSyncCall();
    return;
  }
  // A thread about to block has its records collected meanwhile, and the
  // joiner need not wait for its next publication to place this call's event.
  Publish(ts, Head(ts));
  if (RecorderGone(/*check_pid=*/false)) StopRecording();
}

void StartMutexOrder(MutexOrder* o, uint64_t addr) {
  uint32_t domain = 0;  // the lock shard
  if (g_mutex_domains.load(std::memory_order_relaxed) < kMutexDomains) {
    const uint32_t i = g_mutex_domains.fetch_add(1, std::memory_order_relaxed);
    if (i < kMutexDomains) domain = kFirstMutexDomain + i;
  }
  o->tag = OrderWord(domain, addr);
  o->next = 0;
}

// Runs after the program's own static destructors (the runtime's .fini_array
// entry is reached last): the exiting thread's end, and a mark that exit() ran.
__attribute__((destructor(101))) static void OnProcessExit() {
  if (!g_rt.active) return;
  FinishThread(/*free_stack=*/false);
  g_rt.shm->exited.store(1, std::memory_order_release);
}

__attribute__((constructor(101))) static void OnProcessStart() { Initialize(); }

}  // namespace seer::rt

// Empty on purpose: `seer record --sync=ebpf` puts a uprobe here that maps the
// calling thread to `counter`. The asm keeps the call and its argument.
SEER_RT_EXPORT __attribute__((noinline, used)) void __seer_register_access_counter(const uint64_t* counter) {
  asm volatile("" : : "r"(counter) : "memory");
}

// Its presence in an ELF file tells `seer record --sync=auto` that the binary
// carries the runtime.
SEER_RT_EXPORT const char __seer_rt_present[] = "seer-rt1";
