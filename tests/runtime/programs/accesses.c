/* Plain accesses of every size, unaligned accesses, ranges through libc and
   atomics of every width and operation, each a known number of times on a known
   address. Exits 1 if an atomic computed a wrong value. */
#include <stdint.h>
#include <string.h>

#include "manifest.h"

#define NOINLINE __attribute__((noinline))
enum { kRepeat = 100 };

uint8_t g8;
uint16_t g16;
uint32_t g32;
uint64_t g64;
__int128 g128;

struct __attribute__((packed)) Unaligned {
  char pad;
  uint16_t u16;
  uint32_t u32;
  uint64_t u64;
} un;

struct Big {
  char bytes[200];
};
struct Big big_src, big_dst;
char text[64] = "the quick brown fox";
char copy_dst[4096], copy_src[4096];

NOINLINE void w8(uint8_t* p, uint8_t v) { *p = v; }
NOINLINE void w16(uint16_t* p, uint16_t v) { *p = v; }
NOINLINE void w32(uint32_t* p, uint32_t v) { *p = v; }
NOINLINE void w64(uint64_t* p, uint64_t v) { *p = v; }
NOINLINE void w128(__int128* p, __int128 v) { *p = v; }
NOINLINE uint8_t r8(uint8_t* p) { return *p; }
NOINLINE uint16_t r16(uint16_t* p) { return *p; }
NOINLINE uint32_t r32(uint32_t* p) { return *p; }
NOINLINE uint64_t r64(uint64_t* p) { return *p; }
NOINLINE __int128 r128(__int128* p) { return *p; }
NOINLINE void wu16(struct Unaligned* p, uint16_t v) { p->u16 = v; }
NOINLINE void wu32(struct Unaligned* p, uint32_t v) { p->u32 = v; }
NOINLINE void wu64(struct Unaligned* p, uint64_t v) { p->u64 = v; }
NOINLINE uint64_t ru_all(struct Unaligned* p) { return p->u16 + p->u32 + p->u64; }
NOINLINE void copy_big(struct Big* d, const struct Big* s) { *d = *s; }

static int failures;
static void check(int ok) { failures += !ok; }

/* Each width: load 2 (one plain, one failed compare-exchange), store 1,
   read-modify-write 9 (exchange, six fetch ops, two successful compare-exchanges). */
#define EXERCISE_ATOMICS(T, var)                                                                         \
  do {                                                                                                   \
    T expected;                                                                                          \
    __atomic_store_n(&var, (T)5, __ATOMIC_RELEASE);                                                      \
    check(__atomic_load_n(&var, __ATOMIC_ACQUIRE) == (T)5);                                              \
    check(__atomic_exchange_n(&var, (T)6, __ATOMIC_SEQ_CST) == (T)5);                                    \
    check(__atomic_fetch_add(&var, (T)3, __ATOMIC_RELAXED) == (T)6);                                     \
    check(__atomic_fetch_sub(&var, (T)1, __ATOMIC_ACQ_REL) == (T)9);                                     \
    check(__atomic_fetch_and(&var, (T)12, __ATOMIC_SEQ_CST) == (T)8);                                    \
    check(__atomic_fetch_or(&var, (T)3, __ATOMIC_SEQ_CST) == (T)8);                                      \
    check(__atomic_fetch_xor(&var, (T)1, __ATOMIC_SEQ_CST) == (T)11);                                    \
    check(__atomic_fetch_nand(&var, (T)2, __ATOMIC_SEQ_CST) == (T)10);                                   \
    expected = (T) ~(T)2;                                                                                \
    check(__atomic_compare_exchange_n(&var, &expected, (T)20, 0, __ATOMIC_SEQ_CST, __ATOMIC_RELAXED));   \
    expected = (T)99;                                                                                    \
    check(!__atomic_compare_exchange_n(&var, &expected, (T)21, 0, __ATOMIC_SEQ_CST, __ATOMIC_ACQUIRE) && \
          expected == (T)20);                                                                            \
    expected = (T)20;                                                                                    \
    check(__atomic_compare_exchange_n(&var, &expected, (T)22, 1, __ATOMIC_SEQ_CST, __ATOMIC_RELAXED));   \
  } while (0)

uint8_t a8;
uint16_t a16;
uint32_t a32;
uint64_t a64;
#ifdef SEER_TEST_ATOMIC128
__int128 a128;
#endif

int main(int argc, char** argv) {
  if (argc < 2) return 2;
  manifest_open(argv[1]);
  manifest_put("g8", &g8);
  manifest_put("g16", &g16);
  manifest_put("g32", &g32);
  manifest_put("g64", &g64);
  manifest_put("g128", &g128);
  manifest_put("un.u16", &un.u16);
  manifest_put("un.u32", &un.u32);
  manifest_put("un.u64", &un.u64);
  manifest_put("big_src", &big_src);
  manifest_put("big_dst", &big_dst);
  manifest_put("text", text);
  manifest_put("copy_src", copy_src);
  manifest_put("copy_dst", copy_dst);
  manifest_put("a8", &a8);
  manifest_put("a16", &a16);
  manifest_put("a32", &a32);
  manifest_put("a64", &a64);
#ifdef SEER_TEST_ATOMIC128
  manifest_put("a128", &a128);
#endif

  uint64_t sum = 0;
  for (int i = 0; i < kRepeat; ++i) {
    w8(&g8, (uint8_t)i);
    w16(&g16, (uint16_t)i);
    w32(&g32, (uint32_t)i);
    w64(&g64, (uint64_t)i);
    w128(&g128, i);
    sum += r8(&g8) + r16(&g16) + r32(&g32) + r64(&g64) + (uint64_t)r128(&g128);
    wu16(&un, (uint16_t)i);
    wu32(&un, (uint32_t)i);
    wu64(&un, (uint64_t)i);
    sum += ru_all(&un);
  }
  /* Ranges: sizes from the command line's length, so the compiler cannot inline them. */
  const size_t n = 1000 + (size_t)argc - 2;
  memset(copy_src, 7, n);
  /* Keep clang from turning the copy of memset bytes into a second memset. */
  __asm__ volatile("" ::: "memory");
  memcpy(copy_dst, copy_src, n);
  memmove(copy_dst + 8, copy_dst, n);
  check(memcmp(copy_dst, copy_src, n - 8) == 0);
  copy_big(&big_dst, &big_src);
  check(strlen(text) == 19);

  EXERCISE_ATOMICS(uint8_t, a8);
  EXERCISE_ATOMICS(uint16_t, a16);
  EXERCISE_ATOMICS(uint32_t, a32);
  EXERCISE_ATOMICS(uint64_t, a64);
#ifdef SEER_TEST_ATOMIC128
  EXERCISE_ATOMICS(__int128, a128);
#endif
  fclose(manifest_file);
  return failures == 0 && sum != 0 ? 0 : 1;
}
