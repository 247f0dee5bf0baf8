/* Plain accesses whose pcs lie near each other and far apart (compact and short
   ring records, ring_record.h). Every access is to its own object and sits
   between two labels whose addresses the manifest gives, so the test can check
   each access's pc; padding of known size (.skip, never executed) between them
   sets the distance from the previous access, forward and, across the loop's
   back edge, backward. Usage: pcs MANIFEST. */
#include <stdint.h>

#include "manifest.h"

#define NOINLINE __attribute__((noinline))
/* Bytes of code that are jumped over: the next access is that much further. */
#define GAP(bytes) __asm__ volatile("jmp 1f\n.skip " #bytes ", 0xcc\n1:" ::: "memory")
enum { kRounds = 3 };

volatile uint8_t o8;
volatile uint16_t o16;
volatile uint32_t o32;
volatile uint64_t o64;
volatile __int128 o128;
volatile uint64_t far_fwd, far_back, after_call, in_callee;

NOINLINE void callee(int emit) {
C0:
  in_callee = 1;
C1:
  if (emit) {
    manifest_put("C0", &&C0);
    manifest_put("C1", &&C1);
  }
}

NOINLINE uint64_t run(int emit) {
  uint64_t sum = 0;
  for (int round = 0; round < kRounds; ++round) {
  L0: /* after the back edge: far behind the last access of the round before */
    far_back = (uint64_t)round;
  L1:
    o8 = (uint8_t)round;
  L2:
    sum += o16;
    GAP(300);
  L3:
    o32 = (uint32_t)round;
    GAP(480);
  L4:
    sum += o64;
    GAP(700);
  L5:
    o128 = round;
    GAP(3000);
  L6:
    sum += far_fwd;
    callee(emit && round == 0);
  L7:
    after_call = sum;
    GAP(1500);
  L8:;
  }
  if (emit) {
    manifest_put("L0", &&L0);
    manifest_put("L1", &&L1);
    manifest_put("L2", &&L2);
    manifest_put("L3", &&L3);
    manifest_put("L4", &&L4);
    manifest_put("L5", &&L5);
    manifest_put("L6", &&L6);
    manifest_put("L7", &&L7);
    manifest_put("L8", &&L8);
  }
  return sum;
}

int main(int argc, char** argv) {
  if (argc < 2) return 2;
  manifest_open(argv[1]);
  manifest_put("far_back", &far_back);
  manifest_put("o8", &o8);
  manifest_put("o16", &o16);
  manifest_put("o32", &o32);
  manifest_put("o64", &o64);
  manifest_put("o128", &o128);
  manifest_put("far_fwd", &far_fwd);
  manifest_put("after_call", &after_call);
  manifest_put("in_callee", &in_callee);
  run(1);
  fclose(manifest_file);
  return 0;
}
