/* Shared by the race-suite programs: a sleep that orders nothing, used to make the
   recorded run take one interleaving without adding synchronisation. */
#ifndef SEER_TESTS_RACES_SUITE_H_
#define SEER_TESTS_RACES_SUITE_H_

#include <time.h>

static inline void sleep_ms(int ms) {
  struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
  nanosleep(&ts, NULL);
}

#endif
