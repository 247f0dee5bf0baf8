/* Shared by the SeqCheck programs. The recorded run must not deadlock, yet the
   threads must not be ordered by any synchronisation the analysis sees (that would
   make the deadlock impossible, not just unlikely): so they are staggered in time
   with sleeps, which order nothing. A watchdog turns a real deadlock (the machine
   so loaded that a sleep was not long enough) into a failed run instead of a hang. */
#ifndef SEER_TESTS_SEQCHECK_PROGRAMS_ORDER_H_
#define SEER_TESTS_SEQCHECK_PROGRAMS_ORDER_H_

#include <time.h>
#include <unistd.h>

/* Long enough for the thread before to finish its few locks, even under load. */
#define STAGGER_MS 100

static inline void sleep_ms(int ms) {
  struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
  while (nanosleep(&ts, &ts) != 0) {
  }
}

/* SIGALRM kills the process: a deadlocked run fails in 20 s instead of hanging. */
static inline void start_watchdog(void) { alarm(20); }

#endif
