// The runtime's own I/O (reading /proc, perf counters, seer fuzz's output,
// closing its memfd): glibc's internal names of open, read, write and close,
// which the program's interposers (interpose_fd.cc) do not wrap. What the
// runtime does for itself is never recorded as the program's I/O, and never
// appends to a ring from inside the runtime (rt_state.h, rule 1), signal
// handlers included. No symbol lookup, async-signal-safe.
#pragma once

#include <sys/types.h>

extern "C" {
int __open(const char* path, int flags, ...);
ssize_t __read(int fd, void* buf, size_t n);
ssize_t __write(int fd, const void* buf, size_t n);
int __close(int fd);
}

namespace seer::rt {

inline int LibcOpen(const char* path, int flags, int mode = 0) { return __open(path, flags, mode); }
inline ssize_t LibcRead(int fd, void* buf, size_t n) { return __read(fd, buf, n); }
inline ssize_t LibcWrite(int fd, const void* buf, size_t n) { return __write(fd, buf, n); }
inline int LibcClose(int fd) { return __close(fd); }

}  // namespace seer::rt
