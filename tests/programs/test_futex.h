/* futex(2) for the test programs, two ways:
 *   - through libc's syscall(), as custom locks and libstdc++ make it: what
 *     the runtime's interposer records (runtime/interpose_futex.cc);
 *   - with FUTEX_BY_INSTRUCTION defined, by the syscall instruction itself, as
 *     a program with its own system call stubs would: what only the futex
 *     tracepoints see (seer record --futex-tracepoints, or ebpf mode).
 * The result is not used by the programs (the two ways report errors apart).
 * Below it, the handoff the programs make of it: rounds first..last, in each
 * the waiter sleeps in FUTEX_WAIT until the waker (after a pause, and once it
 * has seen the waiter asleep on the word) stores the round number and issues
 * one FUTEX_WAKE. */
#include <fcntl.h>
#include <linux/futex.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

static inline void test_futex(void* word, int op, int val) {
#ifdef FUTEX_BY_INSTRUCTION
  long ret;
  register long r10 __asm__("r10") = 0;
  register long r8 __asm__("r8") = 0;
  register long r9 __asm__("r9") = 0;
  __asm__ volatile("syscall"
                   : "=a"(ret)
                   : "0"((long)SYS_futex), "D"(word), "S"((long)op), "d"((long)val), "r"(r10), "r"(r8), "r"(r9)
                   : "rcx", "r11", "memory");
  (void)ret;
#else
  syscall(SYS_futex, word, op, val, 0, 0, 0);
#endif
}

/* Who waits on which word. The waker wakes a round only once that thread is
 * asleep in FUTEX_WAIT on the word, so that every round is exactly one wait
 * and one wake however loaded the machine is: a waiter that came late would
 * see the new round and not wait at all, and the tests count the waits. */
static struct {
  _Atomic(void*) word;
  _Atomic int tid;
} test_futex_waiters[4];

static inline void test_futex_register_waiter(void* word) {
  const int tid = (int)syscall(SYS_gettid);
  for (int i = 0; i < 4; i++) {
    void* expected = 0;
    if (atomic_compare_exchange_strong(&test_futex_waiters[i].word, &expected, word) || expected == word) {
      atomic_store(&test_futex_waiters[i].tid, tid);
      return;
    }
  }
}

/* Whether the registered waiter of `word` is in futex(2) on it now
 * (/proc/self/task/TID/syscall reads "202 0xWORD ..." then). */
static inline int test_futex_waiter_asleep(void* word) {
  int tid = 0;
  for (int i = 0; i < 4 && tid == 0; i++)
    if (atomic_load(&test_futex_waiters[i].word) == word) tid = atomic_load(&test_futex_waiters[i].tid);
  if (tid == 0) return 0;
  char path[64], buf[128], expect[64];
  snprintf(path, sizeof path, "/proc/self/task/%d/syscall", tid);
  /* Raw system calls: the runtime models a read() as a wait on the file's
   * sync object, and this probe must add no event to the handoff it watches. */
  const int fd = (int)syscall(SYS_openat, AT_FDCWD, path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return 0;
  const ssize_t n = syscall(SYS_read, fd, buf, sizeof buf - 1);
  syscall(SYS_close, fd);
  if (n <= 0) return 0;
  buf[n] = 0;
  snprintf(expect, sizeof expect, "%d 0x%lx ", SYS_futex, (unsigned long)word);
  return strncmp(buf, expect, strlen(expect)) == 0;
}

/* The waiter's side: returns once `word` went through rounds first..last. */
static inline void wait_rounds(_Atomic int* word, int first, int last) {
  test_futex_register_waiter(word);
  for (int round = first; round <= last; round++) {
    int seen;
    while ((seen = atomic_load(word)) != round) test_futex(word, FUTEX_WAIT_PRIVATE, seen);
  }
}

/* The waker's side: each round `pause_us` later and once the waiter sleeps on
 * the word (waited for up to 10 s, then woken anyway), one wake. */
static inline void wake_rounds(_Atomic int* word, int first, int last, useconds_t pause_us) {
  for (int round = first; round <= last; round++) {
    usleep(pause_us);
    for (int tries = 0; tries < 10000 && !test_futex_waiter_asleep(word); tries++) usleep(1000);
    atomic_store(word, round);
    test_futex(word, FUTEX_WAKE_PRIVATE, 1);
  }
}
