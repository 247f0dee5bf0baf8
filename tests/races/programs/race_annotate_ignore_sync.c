/* A worker takes the mutex between AnnotateIgnoreSyncBegin/End: its lock and
   unlock order nothing (as under ThreadSanitizer, its ignore_sync.cpp), so its
   increment races with main's, which holds the same mutex. Thread creation
   and the join still order: main's last read, after the join, does not race. */
// seer-fuzz-unreachable: a the mutex the annotation hides from the recording still excludes the two increments: no
// schedule holds both threads at them at once
#include <pthread.h>

void AnnotateIgnoreSyncBegin(const char* file, int line);
void AnnotateIgnoreSyncEnd(const char* file, int line);

pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
long counter;

static void* worker(void* arg) {
  (void)arg;
  AnnotateIgnoreSyncBegin(__FILE__, __LINE__);
  pthread_mutex_lock(&m);
  counter++;  // RACE(a)
  pthread_mutex_unlock(&m);
  AnnotateIgnoreSyncEnd(__FILE__, __LINE__);
  return NULL;
}

int main(void) {
  pthread_t t;
  pthread_create(&t, NULL, worker, NULL);
  pthread_mutex_lock(&m);
  counter++;  // RACE(a)
  pthread_mutex_unlock(&m);
  pthread_join(t, NULL);
  return counter == 2 ? 0 : 2;
}
