/* Looks like a program built by another version of seer-cc: it defines the
   symbol that says "this binary carries the runtime" (include/seer/ring_layout.h,
   kRuntimeMarkerSymbol) but has no runtime that would claim the recorder's area,
   as a runtime of another version does not. For record_test.cc. */
#include <stdio.h>

__attribute__((used, visibility("default"))) const char __seer_rt_present[] = "seer-rt0";

int main(void) {
  puts("foreign_runtime ran");
  return 0;
}
