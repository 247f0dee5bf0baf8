/* seer fuzz for atomicity (issue #34): a lost update in a table of items, as a
   cache server has it. An increment looks the key's item up and reads its
   count under the table lock, releases it, and writes count + 1 under the lock
   again. A replacement puts a new item in the table and marks the old one dead
   (count -1) under the same lock. When a replacement comes between the
   increment's two steps, the increment writes to the dead item: it is lost,
   and main counts it.

   The recorded run has the replacement after the increments (a sleep), so
   nothing is lost. Modes (argv[1]):
     replace       the new item starts from a fixed value: the violation can be
                   predicted soundly (a witness), and fuzzed;
     copy          the new item carries the old count over: the replacement reads
                   the count it then overwrites, so no sound reordering of the
                   run has it (it would read another value): a candidate that
                   only a steered run shows;
   and with argv[2] = "fixed", the increment holds the lock from its read to its
   write: never lost (the same statements, so that the racy run's report can
   steer the fixed run). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct item {
  long count;
  int linked;
};

static struct item* table; /* the key's current item */
static struct item* dead[8];
static int dead_count;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int copy_mode, fixed;

static void* Increment(void* arg) {
  for (int i = 0; i < 3; ++i) {
    pthread_mutex_lock(&lock);
    struct item* it = table;
    long seen = it->count; /* MARK-FIRST */
    if (!fixed) {
      pthread_mutex_unlock(&lock);
      seen += 1;
      pthread_mutex_lock(&lock);
    } else {
      seen += 1;
    }
    it->count = seen; /* MARK-SECOND */
    pthread_mutex_unlock(&lock);
  }
  return arg;
}

static void* Replace(void* arg) {
  usleep(20000);
  pthread_mutex_lock(&lock);
  struct item* old = table;
  struct item* fresh = malloc(sizeof *fresh);
  fresh->count = copy_mode ? old->count : 100; /* MARK-COPY */
  fresh->linked = 1;
  old->count = -1; /* MARK-REMOTE: dead */
  old->linked = 0;
  dead[dead_count++] = old;
  table = fresh;
  pthread_mutex_unlock(&lock);
  return arg;
}

int main(int argc, char** argv) {
  copy_mode = argc > 1 && strcmp(argv[1], "copy") == 0;
  fixed = argc > 2 && strcmp(argv[2], "fixed") == 0;
  table = calloc(1, sizeof *table);
  table->linked = 1;
  pthread_t a, b;
  pthread_create(&a, NULL, Increment, NULL);
  pthread_create(&b, NULL, Replace, NULL);
  pthread_join(a, NULL);
  pthread_join(b, NULL);
  int lost = 0;
  for (int i = 0; i < dead_count; ++i) lost += dead[i]->count != -1;
  printf("lost updates: %d\n", lost);
  return lost == 0 ? 0 : 1;
}
