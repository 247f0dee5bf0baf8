/* A worker sets `value` and then writes a byte to a pipe with a raw write
   system call; main reads the byte with a raw read and then reads `value`.
   Both calls are announced with the sanitizers' system call hooks
   (<sanitizer/linux_syscall_hooks.h>, declared here by hand), so seer orders
   them as it orders libc's write and read: the write before the read that
   received its byte. No race. */
// seer-expect: none
#include <pthread.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <unistd.h>

void __sanitizer_syscall_pre_impl_pipe(long fildes);
void __sanitizer_syscall_post_impl_pipe(long res, long fildes);
void __sanitizer_syscall_pre_impl_read(long fd, long buf, long count);
void __sanitizer_syscall_post_impl_read(long res, long fd, long buf, long count);
void __sanitizer_syscall_pre_impl_write(long fd, long buf, long count);
void __sanitizer_syscall_post_impl_write(long res, long fd, long buf, long count);
void __sanitizer_syscall_pre_impl_close(long fd);
void __sanitizer_syscall_post_impl_close(long res, long fd);

int fds[2];
int value;

static void* worker(void* arg) {
  (void)arg;
  value = 42;
  char byte = 1;
  __sanitizer_syscall_pre_impl_write(fds[1], (long)&byte, 1);
  long r = syscall(SYS_write, fds[1], &byte, 1);
  __sanitizer_syscall_post_impl_write(r, fds[1], (long)&byte, 1);
  return NULL;
}

int main(void) {
  __sanitizer_syscall_pre_impl_pipe((long)fds);
  long r = syscall(SYS_pipe2, fds, 0);
  __sanitizer_syscall_post_impl_pipe(r, (long)fds);
  if (r != 0) return 1;
  pthread_t t;
  pthread_create(&t, NULL, worker, NULL);
  char byte = 0;
  __sanitizer_syscall_pre_impl_read(fds[0], (long)&byte, 1);
  r = syscall(SYS_read, fds[0], &byte, 1);
  __sanitizer_syscall_post_impl_read(r, fds[0], (long)&byte, 1);
  printf("%d\n", value);
  pthread_join(t, NULL);
  for (int i = 0; i < 2; i++) {
    __sanitizer_syscall_pre_impl_close(fds[i]);
    r = syscall(SYS_close, fds[i]);
    __sanitizer_syscall_post_impl_close(r, fds[i]);
  }
  return value == 42 ? 0 : 1;
}
