/* Test programs tell the test which addresses to look at: "name hexaddr" lines in
   the file named by their first argument. */
#ifndef SEER_TESTS_RUNTIME_MANIFEST_H_
#define SEER_TESTS_RUNTIME_MANIFEST_H_

#include <stdio.h>
#include <stdlib.h>

static FILE* manifest_file;

static void manifest_open(const char* path) {
  manifest_file = fopen(path, "w");
  if (manifest_file == NULL) {
    perror(path);
    exit(2);
  }
}

static void manifest_put(const char* name, const volatile void* addr) {
  fprintf(manifest_file, "%s %lx\n", name, (unsigned long)addr);
  fflush(manifest_file);
}

#endif
