// File descriptors, as ThreadSanitizer models them (compiler-rt tsan_fd.cpp):
//
// Synchronisation through the kernel. Each descriptor the runtime saw created
// names a sync object: its own for the two ends of a pipe or socketpair and
// for an eventfd, one shared by every socket (connect meets accept and data
// crosses a connection between two of the process's sockets: the runtime
// cannot tell which, so, like ThreadSanitizer, it joins them all), one shared
// by every regular file. A call that sends (write, send, sendto, sendmsg,
// pwrite, writev, connect) is a kSignal on it, numbered before the call; one
// that received (read, recv, recvfrom, recvmsg, pread, readv, accept) a kWait,
// numbered after the call returned, as the futex calls are (interpose_futex.cc).
// A descriptor the runtime did not see created (stdin, one made by libc inside
// fopen) has none: its I/O orders nothing. accept's return orders nothing after
// connect's (ThreadSanitizer neither).
//
// Descriptors as memory. Descriptor N is the byte kFdShadowBase + N (above
// every user-space address): an I/O call reads it, close() writes it, so that
// a close racing with a read on the same descriptor in another thread is a
// race on that byte. dup2()/dup3() read their target, before and after giving
// it its new identity, as ThreadSanitizer's do: programs dup /dev/null or a
// closed pipe over a descriptor other threads use, to end that use safely, so
// only a close (or creation) races with a dup2, not the I/O. Creation (open,
// socket, pipe, dup, accept, ...) and close() give the byte a fresh identity
// (a kAlloc of 1 byte): a descriptor number reused after a close is a new
// variable, whoever created it. A creation's alloc (AllocRegion::
// kFileDescriptor) also writes the byte, as ThreadSanitizer's creation does, so
// that a close unordered with the call that made the number races with it;
// dup2's (kFileDescriptorDup) reads it; close's (kFileDescriptorReset) does
// not touch it: the number's next creation may be one the runtime does not see
// (libc's own open in fopen), ordered with the close by the kernel alone. The
// region lets reports say "file descriptor N", with the stack that created it.
//
// libc's own accesses. The buffer a read-like call filled (the bytes it
// returned) is written, the buffer a write-like call sent (the bytes it took)
// is read, as one range record per call (libc_access.h), like memcpy's; so are
// the strings of puts and fputs and the items of fread and fwrite.
//
// vfork() is fork() (ThreadSanitizer's choice): a vfork child runs on its
// parent's thread, stack and ring, and a child that calls exit() runs the
// runtime's exit path in the parent's memory. As a fork's child it records
// nothing and shares nothing.
//
// In `--sync=ebpf` mode the probes do not see I/O: the sync objects are not
// recorded (the descriptor bytes and buffers are, like memcpy's ranges).
// read, write and close reach glibc through its internal names (libc_io.h), so
// that they need no symbol lookup in a signal handler; the others through
// RealFunction. Not modelled: descriptors at or above kModelledFds, fcntl's
// F_DUPFD, the readiness epoll/poll/select report (they are interposed only so
// that a handler that runs while they wait runs in the thread's context:
// Blocking), the fortified __read_chk & co., raw syscall(),
// sendmmsg/recvmmsg.
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/select.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdarg>
#include <cstddef>
#include <cstdint>

#include "runtime/fuzz_scheduler.h"
#include "runtime/libc_access.h"
#include "runtime/libc_io.h"
#include "runtime/real_function.h"
#include "runtime/rt_state.h"
#include "runtime/signal_delivery.h"

namespace seer::rt {
namespace {

// The sync objects (signal namespace), like the descriptors' bytes
// (kFdShadowBase, seer/event.h) in the upper half of the 48-bit object space,
// where no user-space address lies.
constexpr uint64_t kFdSyncBase = 0xfe0000000000;

// Descriptors below this are modelled (a table of 256 KiB, untouched pages
// cost nothing).
constexpr int kModelledFds = 1 << 16;
static_assert(kFdShadowBase + kModelledFds == kFdShadowLimit, "the descriptors' bytes (seer/event.h)");

// Sync object numbers: 0 none, then the shared ones, then one per pipe,
// socketpair or eventfd.
constexpr uint32_t kNoSync = 0;
constexpr uint32_t kSocketSync = 1;
constexpr uint32_t kFileSync = 2;
constexpr uint32_t kFirstOwnSync = 16;

std::atomic<uint32_t> g_fd_sync[kModelledFds];
std::atomic<uint32_t> g_next_sync{kFirstOwnSync};

SEER_RT_INLINE bool Modelled(int fd) { return static_cast<unsigned>(fd) < static_cast<unsigned>(kModelledFds); }
SEER_RT_INLINE const void* FdByte(int fd) { return reinterpret_cast<const void*>(kFdShadowBase + fd); }
SEER_RT_INLINE uint32_t SyncOf(int fd) {
  return Modelled(fd) ? g_fd_sync[fd].load(std::memory_order_relaxed) : kNoSync;
}
uint32_t NewSync() { return g_next_sync.fetch_add(1, std::memory_order_relaxed); }

// Recording after a call must leave the call's errno (a wait for the drainer
// may make system calls).
class KeepErrno {
 public:
  KeepErrno() : saved_(errno) {}
  ~KeepErrno() { errno = saved_; }
  KeepErrno(const KeepErrno&) = delete;
  KeepErrno& operator=(const KeepErrno&) = delete;

 private:
  int saved_;
};

// The thread that records a descriptor's synchronisation: in-process sync
// only (the eBPF probes see no I/O, and asking them to attach the thread at
// every read would cost a call for nothing).
SEER_RT_INLINE ThreadState* FdSyncThread() {
  if (!g_rt.sync_inproc || g_rt.watch_only) return nullptr;
  return RecordingThread();
}

// An I/O call uses the descriptor: a read of its byte.
void UseFd(int fd, uint64_t pc) {
  if (!Modelled(fd)) return;
  KeepErrno keep;
  RangeRead(FdByte(fd), 1, pc);
}

// Before a call that sends through `fd`: its sync object's signal.
void ReleaseFd(int fd, uint64_t pc) {
  const uint32_t sync = SyncOf(fd);
  if (sync == kNoSync) return;
  KeepErrno keep;
  if (ThreadState* ts = FdSyncThread()) PutOrdered(ts, EventKind::kSignal, 0, kFdSyncBase + sync, 0, pc);
}

// After a call that received through `fd`: the wait on its sync object.
void AcquireFd(int fd, uint64_t pc) {
  const uint32_t sync = SyncOf(fd);
  if (sync == kNoSync) return;
  KeepErrno keep;
  if (ThreadState* ts = FdSyncThread()) PutOrdered(ts, EventKind::kWait, 0, kFdSyncBase + sync, 0, pc);
}

// A fresh identity for descriptor `fd`'s byte: kFileDescriptor for a creation
// (which writes it), kFileDescriptorDup for dup2's target (read),
// kFileDescriptorReset for a close (the note at the top).
void RenewFd(int fd, AllocRegion region, uint64_t pc) {
  if (ThreadState* ts = RecordingThread())
    PutOrdered(ts, EventKind::kAlloc, static_cast<uint8_t>(region), kFdShadowBase + fd, 1, pc);
}

// `fd` was just created, naming `sync` (`region`: kFileDescriptorDup for dup2's target).
void CreateFd(int fd, uint32_t sync, uint64_t pc, AllocRegion region = AllocRegion::kFileDescriptor) {
  if (!Modelled(fd)) return;
  KeepErrno keep;
  g_fd_sync[fd].store(sync, std::memory_order_relaxed);
  RenewFd(fd, region, pc);
}

// `fd` stops naming what it named (close): a write of its byte. Before close()
// itself, so that the table entry is cleared before another thread can be
// given the number.
void EndFd(int fd, uint64_t pc) {
  if (!Modelled(fd)) return;
  KeepErrno keep;
  RangeWrite(FdByte(fd), 1, pc);
  g_fd_sync[fd].store(kNoSync, std::memory_order_relaxed);
}

// The bytes of `iov` that a call moved (`done` of them, in order).
void IovecRanges(const struct iovec* iov, size_t count, ssize_t done, bool write, uint64_t pc) {
  if (done <= 0) return;
  KeepErrno keep;
  size_t left = static_cast<size_t>(done);
  for (size_t i = 0; i < count && left > 0; ++i) {
    const size_t n = iov[i].iov_len < left ? iov[i].iov_len : left;
    if (write)
      RangeWrite(iov[i].iov_base, n, pc);
    else
      RangeRead(iov[i].iov_base, n, pc);
    left -= n;
  }
}

// What a call that sends does around it, and what one that receives does
// after it: `n` bytes of `buf` moved.
SEER_RT_INLINE void BeforeSend(int fd, uint64_t pc) {
  UseFd(fd, pc);
  ReleaseFd(fd, pc);
}
void AfterSend(const void* buf, ssize_t n, uint64_t pc) {
  if (n <= 0) return;
  KeepErrno keep;
  RangeRead(buf, static_cast<size_t>(n), pc);
}
void AfterReceive(int fd, void* buf, ssize_t n, uint64_t pc) {
  if (n < 0) return;
  // The wait first: the kernel filled the buffer after the data arrived.
  AcquireFd(fd, pc);
  if (n == 0) return;
  KeepErrno keep;
  RangeWrite(buf, static_cast<size_t>(n), pc);
}

// A call that may block in the kernel (a read waiting for a writer, a write
// on a full pipe, an accept): a signal handler that runs meanwhile records in
// the thread's own ring (BlockingCall). Under `seer fuzz` it hands the run
// token on, as the pthread waits do: the thread it waits for must be able to run.
template <typename Fn>
SEER_RT_INLINE auto Blocking(Fn fn) {
  const bool fuzz = FuzzOn();
  if (fuzz) FuzzBlockBegin();
  const auto r = [&] {
    BlockingCall in_call(RecordingThread());
    return fn();
  }();
  if (fuzz) FuzzBlockEnd();
  return r;
}

// A string's length, by hand: the runtime's strlen is an interposer that records.
size_t Length(const char* s) {
  size_t n = 0;
  while (s[n] != '\0') ++n;
  return n;
}

RealFunction<ssize_t (*)(int, void*, size_t, off_t)> real_pread("pread");
RealFunction<ssize_t (*)(int, const void*, size_t, off_t)> real_pwrite("pwrite");
RealFunction<ssize_t (*)(int, void*, size_t, off_t)> real_pread64("pread64");
RealFunction<ssize_t (*)(int, const void*, size_t, off_t)> real_pwrite64("pwrite64");
RealFunction<ssize_t (*)(int, const struct iovec*, int)> real_readv("readv");
RealFunction<ssize_t (*)(int, const struct iovec*, int)> real_writev("writev");
RealFunction<ssize_t (*)(int, void*, size_t, int)> real_recv("recv");
RealFunction<ssize_t (*)(int, const void*, size_t, int)> real_send("send");
RealFunction<ssize_t (*)(int, void*, size_t, int, struct sockaddr*, socklen_t*)> real_recvfrom("recvfrom");
RealFunction<ssize_t (*)(int, const void*, size_t, int, const struct sockaddr*, socklen_t)> real_sendto("sendto");
RealFunction<ssize_t (*)(int, struct msghdr*, int)> real_recvmsg("recvmsg");
RealFunction<ssize_t (*)(int, const struct msghdr*, int)> real_sendmsg("sendmsg");
RealFunction<int (*)(const char*, int, ...)> real_open64("open64");
RealFunction<int (*)(int, const char*, int, ...)> real_openat("openat");
RealFunction<int (*)(int, const char*, int, ...)> real_openat64("openat64");
RealFunction<int (*)(const char*, mode_t)> real_creat("creat");
RealFunction<int (*)(const char*, mode_t)> real_creat64("creat64");
RealFunction<int (*)(int, int, int)> real_socket("socket");
RealFunction<int (*)(int, int, int, int*)> real_socketpair("socketpair");
RealFunction<int (*)(int*)> real_pipe("pipe");
RealFunction<int (*)(int*, int)> real_pipe2("pipe2");
RealFunction<int (*)(int, struct sockaddr*, socklen_t*)> real_accept("accept");
RealFunction<int (*)(int, struct sockaddr*, socklen_t*, int)> real_accept4("accept4");
RealFunction<int (*)(int, const struct sockaddr*, socklen_t)> real_connect("connect");
RealFunction<int (*)(int)> real_dup("dup");
RealFunction<int (*)(int, int)> real_dup2("dup2");
RealFunction<int (*)(int, int, int)> real_dup3("dup3");
RealFunction<int (*)(unsigned, int)> real_eventfd("eventfd");
RealFunction<int (*)(const char*)> real_puts("puts");
RealFunction<int (*)(const char*, FILE*)> real_fputs("fputs");
RealFunction<size_t (*)(void*, size_t, size_t, FILE*)> real_fread("fread");
RealFunction<size_t (*)(const void*, size_t, size_t, FILE*)> real_fwrite("fwrite");
RealFunction<int (*)(struct pollfd*, nfds_t, int)> real_poll("poll");
RealFunction<int (*)(struct pollfd*, nfds_t, const struct timespec*, const sigset_t*)> real_ppoll("ppoll");
RealFunction<int (*)(int, fd_set*, fd_set*, fd_set*, struct timeval*)> real_select("select");
RealFunction<int (*)(int, fd_set*, fd_set*, fd_set*, const struct timespec*, const sigset_t*)> real_pselect("pselect");
RealFunction<int (*)(int, struct epoll_event*, int, int)> real_epoll_wait("epoll_wait");
RealFunction<int (*)(int, struct epoll_event*, int, int, const sigset_t*)> real_epoll_pwait("epoll_pwait");

// open's mode argument: read only when the flags say it was passed (as glibc does).
SEER_RT_INLINE int ModeArg(int flags, va_list ap) {
  const bool has_mode = (flags & O_CREAT) != 0 || (flags & O_TMPFILE) == O_TMPFILE;
  return has_mode ? va_arg(ap, int) : 0;
}

// The shapes every I/O interposer below takes; `pc` is the program's call site
// (SEER_RT_CALLER_PC, taken in the interposer itself) and `call` the real call.
template <typename Call>
SEER_RT_INLINE ssize_t Receive(int fd, void* buf, uint64_t pc, Call call) {
  UseFd(fd, pc);
  const ssize_t r = Blocking(call);
  AfterReceive(fd, buf, r, pc);
  return r;
}
template <typename Call>
SEER_RT_INLINE ssize_t Send(int fd, const void* buf, uint64_t pc, Call call) {
  BeforeSend(fd, pc);
  const ssize_t r = Blocking(call);
  AfterSend(buf, r, pc);
  return r;
}
template <typename Call>
SEER_RT_INLINE ssize_t ReceiveVector(int fd, const struct iovec* iov, size_t count, uint64_t pc, Call call) {
  UseFd(fd, pc);
  const ssize_t r = Blocking(call);
  if (r >= 0) AcquireFd(fd, pc);
  IovecRanges(iov, count, r, /*write=*/true, pc);
  return r;
}
template <typename Call>
SEER_RT_INLINE ssize_t SendVector(int fd, const struct iovec* iov, size_t count, uint64_t pc, Call call) {
  BeforeSend(fd, pc);
  const ssize_t r = Blocking(call);
  IovecRanges(iov, count, r, /*write=*/false, pc);
  return r;
}

// A call that returned a new descriptor (or -1) naming `sync`.
SEER_RT_INLINE int Created(int fd, uint32_t sync, uint64_t pc) {
  if (fd >= 0) CreateFd(fd, sync, pc);
  return fd;
}

// pipe, pipe2, socketpair: two ends of one channel, one sync object.
SEER_RT_INLINE int CreatedPair(int r, const int fds[2], uint64_t pc) {
  if (r == 0) {
    const uint32_t sync = NewSync();
    CreateFd(fds[0], sync, pc);
    CreateFd(fds[1], sync, pc);
  }
  return r;
}

// accept, accept4: the listening socket's wait, and the new connection.
SEER_RT_INLINE int Accepted(int fd, int r, uint64_t pc) {
  if (r >= 0) {
    AcquireFd(fd, pc);
    CreateFd(r, kSocketSync, pc);
  }
  return r;
}

// dup2, dup3: `target` is closed and then names what `fd` names; its byte is
// read before, and by the new identity's creation (the note at the top).
SEER_RT_INLINE int DuplicatedOnto(int fd, int target, int r, uint64_t pc) {
  if (r >= 0 && fd != target) {
    UseFd(fd, pc);
    UseFd(target, pc);
    CreateFd(target, SyncOf(fd), pc, AllocRegion::kFileDescriptorDup);
  }
  return r;
}

// Before close(fd): the end of what `fd` named, and ThreadSanitizer's reset:
// a number reused by a creation not seen starts afresh. Before the close: no
// creation can reuse the number before it.
SEER_RT_INLINE void Closing(int fd, uint64_t pc) {
  EndFd(fd, pc);
  if (!Modelled(fd)) return;
  KeepErrno keep;
  RenewFd(fd, AllocRegion::kFileDescriptorReset, pc);
}

// puts, fputs, fwrite read the program's bytes; fread writes them.
SEER_RT_INLINE void StdioRead(const void* p, size_t n, uint64_t pc) {
  KeepErrno keep;
  RangeRead(p, n, pc);
}

}  // namespace
}  // namespace seer::rt

using namespace seer::rt;
using seer::AllocRegion;
using seer::EventKind;

#pragma GCC visibility push(default)
extern "C" {

ssize_t read(int fd, void* buf, size_t n) {
  return Receive(fd, buf, SEER_RT_CALLER_PC(), [&] { return LibcRead(fd, buf, n); });
}

ssize_t write(int fd, const void* buf, size_t n) {
  return Send(fd, buf, SEER_RT_CALLER_PC(), [&] { return LibcWrite(fd, buf, n); });
}

ssize_t pread(int fd, void* buf, size_t n, off_t off) {
  return Receive(fd, buf, SEER_RT_CALLER_PC(), [&] { return real_pread.get()(fd, buf, n, off); });
}

ssize_t pread64(int fd, void* buf, size_t n, off_t off) {
  return Receive(fd, buf, SEER_RT_CALLER_PC(), [&] { return real_pread64.get()(fd, buf, n, off); });
}

ssize_t pwrite(int fd, const void* buf, size_t n, off_t off) {
  return Send(fd, buf, SEER_RT_CALLER_PC(), [&] { return real_pwrite.get()(fd, buf, n, off); });
}

ssize_t pwrite64(int fd, const void* buf, size_t n, off_t off) {
  return Send(fd, buf, SEER_RT_CALLER_PC(), [&] { return real_pwrite64.get()(fd, buf, n, off); });
}

ssize_t readv(int fd, const struct iovec* iov, int count) {
  return ReceiveVector(fd, iov, static_cast<size_t>(count), SEER_RT_CALLER_PC(),
                       [&] { return real_readv.get()(fd, iov, count); });
}

ssize_t writev(int fd, const struct iovec* iov, int count) {
  return SendVector(fd, iov, static_cast<size_t>(count), SEER_RT_CALLER_PC(),
                    [&] { return real_writev.get()(fd, iov, count); });
}

ssize_t recv(int fd, void* buf, size_t n, int flags) {
  return Receive(fd, buf, SEER_RT_CALLER_PC(), [&] { return real_recv.get()(fd, buf, n, flags); });
}

ssize_t recvfrom(int fd, void* buf, size_t n, int flags, struct sockaddr* from, socklen_t* from_len) {
  return Receive(fd, buf, SEER_RT_CALLER_PC(), [&] { return real_recvfrom.get()(fd, buf, n, flags, from, from_len); });
}

ssize_t recvmsg(int fd, struct msghdr* msg, int flags) {
  return ReceiveVector(fd, msg->msg_iov, msg->msg_iovlen, SEER_RT_CALLER_PC(),
                       [&] { return real_recvmsg.get()(fd, msg, flags); });
}

ssize_t send(int fd, const void* buf, size_t n, int flags) {
  return Send(fd, buf, SEER_RT_CALLER_PC(), [&] { return real_send.get()(fd, buf, n, flags); });
}

ssize_t sendto(int fd, const void* buf, size_t n, int flags, const struct sockaddr* to, socklen_t to_len) {
  return Send(fd, buf, SEER_RT_CALLER_PC(), [&] { return real_sendto.get()(fd, buf, n, flags, to, to_len); });
}

ssize_t sendmsg(int fd, const struct msghdr* msg, int flags) {
  return SendVector(fd, msg->msg_iov, msg->msg_iovlen, SEER_RT_CALLER_PC(),
                    [&] { return real_sendmsg.get()(fd, msg, flags); });
}

// The open family is variadic: each starts its own va_list.
int open(const char* path, int flags, ...) {
  va_list ap;
  va_start(ap, flags);
  const int mode = ModeArg(flags, ap);
  va_end(ap);
  return Created(LibcOpen(path, flags, mode), kFileSync, SEER_RT_CALLER_PC());
}

int open64(const char* path, int flags, ...) {
  va_list ap;
  va_start(ap, flags);
  const int mode = ModeArg(flags, ap);
  va_end(ap);
  return Created(real_open64.get()(path, flags, mode), kFileSync, SEER_RT_CALLER_PC());
}

int openat(int dir, const char* path, int flags, ...) {
  va_list ap;
  va_start(ap, flags);
  const int mode = ModeArg(flags, ap);
  va_end(ap);
  return Created(real_openat.get()(dir, path, flags, mode), kFileSync, SEER_RT_CALLER_PC());
}

int openat64(int dir, const char* path, int flags, ...) {
  va_list ap;
  va_start(ap, flags);
  const int mode = ModeArg(flags, ap);
  va_end(ap);
  return Created(real_openat64.get()(dir, path, flags, mode), kFileSync, SEER_RT_CALLER_PC());
}

int creat(const char* path, mode_t mode) {
  return Created(real_creat.get()(path, mode), kFileSync, SEER_RT_CALLER_PC());
}

int creat64(const char* path, mode_t mode) {
  return Created(real_creat64.get()(path, mode), kFileSync, SEER_RT_CALLER_PC());
}

int close(int fd) {
  Closing(fd, SEER_RT_CALLER_PC());
  return LibcClose(fd);
}

int socket(int domain, int type, int protocol) noexcept {
  return Created(real_socket.get()(domain, type, protocol), kSocketSync, SEER_RT_CALLER_PC());
}

int socketpair(int domain, int type, int protocol, int sv[2]) noexcept {
  return CreatedPair(real_socketpair.get()(domain, type, protocol, sv), sv, SEER_RT_CALLER_PC());
}

int pipe(int fds[2]) noexcept { return CreatedPair(real_pipe.get()(fds), fds, SEER_RT_CALLER_PC()); }

int pipe2(int fds[2], int flags) noexcept {
  return CreatedPair(real_pipe2.get()(fds, flags), fds, SEER_RT_CALLER_PC());
}

int eventfd(unsigned count, int flags) noexcept {
  return Created(real_eventfd.get()(count, flags), NewSync(), SEER_RT_CALLER_PC());
}

// connect() is a signal on the socket (ThreadSanitizer: what the connecting
// thread did happens before the accept that meets it); once connected the
// socket names the sockets' sync object.
int connect(int fd, const struct sockaddr* addr, socklen_t len) {
  const uint64_t pc = SEER_RT_CALLER_PC();
  UseFd(fd, pc);
  if (ThreadState* ts = FdSyncThread()) PutOrdered(ts, EventKind::kSignal, 0, kFdSyncBase + kSocketSync, 0, pc);
  const int r = Blocking([&] { return real_connect.get()(fd, addr, len); });
  if (r == 0 && Modelled(fd)) g_fd_sync[fd].store(kSocketSync, std::memory_order_relaxed);
  return r;
}

int accept(int fd, struct sockaddr* addr, socklen_t* len) {
  const uint64_t pc = SEER_RT_CALLER_PC();
  UseFd(fd, pc);
  return Accepted(fd, Blocking([&] { return real_accept.get()(fd, addr, len); }), pc);
}

int accept4(int fd, struct sockaddr* addr, socklen_t* len, int flags) {
  const uint64_t pc = SEER_RT_CALLER_PC();
  UseFd(fd, pc);
  return Accepted(fd, Blocking([&] { return real_accept4.get()(fd, addr, len, flags); }), pc);
}

// The waits for descriptors record nothing (what they wait for is ordered
// by the read or accept that follows), but a signal handler that runs while
// they wait runs in the thread's context (Blocking), and under `seer fuzz`
// they hand the run token on.
int poll(struct pollfd* fds, nfds_t n, int timeout) {
  return Blocking([&] { return real_poll.get()(fds, n, timeout); });
}

int ppoll(struct pollfd* fds, nfds_t n, const struct timespec* timeout, const sigset_t* mask) {
  return Blocking([&] { return real_ppoll.get()(fds, n, timeout, mask); });
}

int select(int n, fd_set* r, fd_set* w, fd_set* e, struct timeval* timeout) {
  return Blocking([&] { return real_select.get()(n, r, w, e, timeout); });
}

int pselect(int n, fd_set* r, fd_set* w, fd_set* e, const struct timespec* timeout, const sigset_t* mask) {
  return Blocking([&] { return real_pselect.get()(n, r, w, e, timeout, mask); });
}

int epoll_wait(int epfd, struct epoll_event* events, int max, int timeout) {
  return Blocking([&] { return real_epoll_wait.get()(epfd, events, max, timeout); });
}

int epoll_pwait(int epfd, struct epoll_event* events, int max, int timeout, const sigset_t* mask) {
  return Blocking([&] { return real_epoll_pwait.get()(epfd, events, max, timeout, mask); });
}

int dup(int fd) noexcept {
  const uint64_t pc = SEER_RT_CALLER_PC();
  const int r = real_dup.get()(fd);
  if (r >= 0) UseFd(fd, pc);
  return Created(r, SyncOf(fd), pc);
}

int dup2(int fd, int target) noexcept {
  return DuplicatedOnto(fd, target, real_dup2.get()(fd, target), SEER_RT_CALLER_PC());
}

int dup3(int fd, int target, int flags) noexcept {
  return DuplicatedOnto(fd, target, real_dup3.get()(fd, target, flags), SEER_RT_CALLER_PC());
}

int puts(const char* s) {
  const int r = real_puts.get()(s);
  StdioRead(s, Length(s) + 1, SEER_RT_CALLER_PC());
  return r;
}

int fputs(const char* s, FILE* f) {
  const int r = real_fputs.get()(s, f);
  StdioRead(s, Length(s) + 1, SEER_RT_CALLER_PC());
  return r;
}

size_t fread(void* buf, size_t size, size_t n, FILE* f) {
  const size_t r = real_fread.get()(buf, size, n, f);
  KeepErrno keep;
  RangeWrite(buf, r * size, SEER_RT_CALLER_PC());
  return r;
}

size_t fwrite(const void* buf, size_t size, size_t n, FILE* f) {
  const size_t r = real_fwrite.get()(buf, size, n, f);
  StdioRead(buf, r * size, SEER_RT_CALLER_PC());
  return r;
}

pid_t vfork() noexcept { return fork(); }

// The sanitizers' system call hooks (<sanitizer/linux_syscall_hooks.h>): a
// program that makes raw system calls announces each with a pre hook before it
// and a post hook (its result first) after it, and ThreadSanitizer models them
// as its interceptors of the libc wrappers. So does seer, for the calls of the
// descriptor model above (a program that names another hook does not link).
// Every argument comes as a long; `res` is the raw call's result (syscall()'s:
// -1 and errno on failure).
void __sanitizer_syscall_pre_impl_read(long fd, long, long) { UseFd(static_cast<int>(fd), SEER_RT_CALLER_PC()); }
void __sanitizer_syscall_post_impl_read(long res, long fd, long buf, long) {
  AfterReceive(static_cast<int>(fd), reinterpret_cast<void*>(buf), res, SEER_RT_CALLER_PC());
}
void __sanitizer_syscall_pre_impl_pread64(long fd, long, long, long) {
  UseFd(static_cast<int>(fd), SEER_RT_CALLER_PC());
}
void __sanitizer_syscall_post_impl_pread64(long res, long fd, long buf, long, long) {
  AfterReceive(static_cast<int>(fd), reinterpret_cast<void*>(buf), res, SEER_RT_CALLER_PC());
}
void __sanitizer_syscall_pre_impl_write(long fd, long, long) { BeforeSend(static_cast<int>(fd), SEER_RT_CALLER_PC()); }
void __sanitizer_syscall_post_impl_write(long res, long, long buf, long) {
  AfterSend(reinterpret_cast<const void*>(buf), res, SEER_RT_CALLER_PC());
}
void __sanitizer_syscall_pre_impl_pwrite64(long fd, long, long, long) {
  BeforeSend(static_cast<int>(fd), SEER_RT_CALLER_PC());
}
void __sanitizer_syscall_post_impl_pwrite64(long res, long, long buf, long, long) {
  AfterSend(reinterpret_cast<const void*>(buf), res, SEER_RT_CALLER_PC());
}
void __sanitizer_syscall_pre_impl_close(long fd) { Closing(static_cast<int>(fd), SEER_RT_CALLER_PC()); }
void __sanitizer_syscall_post_impl_close(long, long) {}
void __sanitizer_syscall_pre_impl_pipe(long) {}
void __sanitizer_syscall_post_impl_pipe(long res, long fds) {
  CreatedPair(static_cast<int>(res), reinterpret_cast<const int*>(fds), SEER_RT_CALLER_PC());
}
void __sanitizer_syscall_pre_impl_pipe2(long, long) {}
void __sanitizer_syscall_post_impl_pipe2(long res, long fds, long) {
  CreatedPair(static_cast<int>(res), reinterpret_cast<const int*>(fds), SEER_RT_CALLER_PC());
}
void __sanitizer_syscall_pre_impl_dup(long) {}
void __sanitizer_syscall_post_impl_dup(long res, long fd) {
  const uint64_t pc = SEER_RT_CALLER_PC();
  if (res >= 0) UseFd(static_cast<int>(fd), pc);
  Created(static_cast<int>(res), SyncOf(static_cast<int>(fd)), pc);
}
void __sanitizer_syscall_pre_impl_dup2(long, long) {}
void __sanitizer_syscall_post_impl_dup2(long res, long fd, long target) {
  DuplicatedOnto(static_cast<int>(fd), static_cast<int>(target), static_cast<int>(res), SEER_RT_CALLER_PC());
}
void __sanitizer_syscall_pre_impl_dup3(long, long, long) {}
void __sanitizer_syscall_post_impl_dup3(long res, long fd, long target, long) {
  DuplicatedOnto(static_cast<int>(fd), static_cast<int>(target), static_cast<int>(res), SEER_RT_CALLER_PC());
}
// A raw fork runs no pthread_atfork handler: its child records nothing, as a
// raw clone()'s (interpose_clone.cc).
void __sanitizer_syscall_pre_impl_fork() {}
void __sanitizer_syscall_post_impl_fork(long res) {
  if (res == 0) ForgetRecordingInChild();
}

}  // extern "C"
#pragma GCC visibility pop
