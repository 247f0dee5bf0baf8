/* futex(2) for the test programs, two ways:
 *   - through libc's syscall(), as custom locks and libstdc++ make it: what
 *     the runtime's interposer records (runtime/interpose_futex.cc);
 *   - with FUTEX_BY_INSTRUCTION defined, by the syscall instruction itself, as
 *     a program with its own system call stubs would: what only the futex
 *     tracepoints see (seer record --futex-tracepoints, or ebpf mode).
 * The result is not used by the programs (the two ways report errors apart).
 * Below it, the handoff the programs make of it: rounds first..last, in each
 * the waiter sleeps in FUTEX_WAIT until the waker (after a pause) stores the
 * round number and issues one FUTEX_WAKE. */
#include <linux/futex.h>
#include <stdatomic.h>
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

/* The waiter's side: returns once `word` went through rounds first..last. */
static inline void wait_rounds(_Atomic int* word, int first, int last) {
  for (int round = first; round <= last; round++) {
    int seen;
    while ((seen = atomic_load(word)) != round) test_futex(word, FUTEX_WAIT_PRIVATE, seen);
  }
}

/* The waker's side: each round `pause_us` later, one wake. */
static inline void wake_rounds(_Atomic int* word, int first, int last, useconds_t pause_us) {
  for (int round = first; round <= last; round++) {
    usleep(pause_us);
    atomic_store(word, round);
    test_futex(word, FUTEX_WAKE_PRIVATE, 1);
  }
}
