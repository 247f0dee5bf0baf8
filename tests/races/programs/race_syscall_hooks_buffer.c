/* The sanitizers' system call hooks (<sanitizer/linux_syscall_hooks.h>, here
   declared by hand: gcc ships no copy), as ThreadSanitizer's Linux/syscall.cpp
   uses them: raw pipe2, read and write system calls, each announced with its
   pre and post hook. main reads from the pipe into `buf` while a worker writes
   `buf` to it: the buffer the kernel fills races with the one it reads. */
#include <pthread.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <unistd.h>

void __sanitizer_syscall_pre_impl_pipe2(long fildes, long flags);
void __sanitizer_syscall_post_impl_pipe2(long res, long fildes, long flags);
void __sanitizer_syscall_pre_impl_read(long fd, long buf, long count);
void __sanitizer_syscall_post_impl_read(long res, long fd, long buf, long count);
void __sanitizer_syscall_pre_impl_write(long fd, long buf, long count);
void __sanitizer_syscall_post_impl_write(long res, long fd, long buf, long count);

int fds[2];
unsigned long long buf[2];

static long raw_read(int fd, void* p, size_t n) {
  __sanitizer_syscall_pre_impl_read(fd, (long)p, (long)n);
  long r = syscall(SYS_read, fd, p, n);
  __sanitizer_syscall_post_impl_read(r, fd, (long)p, (long)n);  // RACE(a)
  return r;
}

static long raw_write(int fd, const void* p, size_t n) {
  __sanitizer_syscall_pre_impl_write(fd, (long)p, (long)n);
  long r = syscall(SYS_write, fd, p, n);
  __sanitizer_syscall_post_impl_write(r, fd, (long)p, (long)n);  // RACE(a)
  return r;
}

static void* worker(void* arg) {
  (void)arg;
  raw_write(fds[1], buf, sizeof buf);
  return NULL;
}

int main(void) {
  __sanitizer_syscall_pre_impl_pipe2((long)fds, 0);
  long r = syscall(SYS_pipe2, fds, 0);
  __sanitizer_syscall_post_impl_pipe2(r, (long)fds, 0);
  if (r != 0) return 1;
  raw_write(fds[1], buf, sizeof buf);
  pthread_t t;
  pthread_create(&t, NULL, worker, NULL);
  raw_read(fds[0], buf, sizeof buf);
  pthread_join(t, NULL);
  raw_read(fds[0], buf, sizeof buf);
  printf("done\n");
  return 0;
}
