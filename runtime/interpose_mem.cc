// The libc functions that read or write memory on the program's behalf, as
// ThreadSanitizer intercepts them: clang 14 and gcc 12 leave plain calls to them
// in instrumented code, so without these a race through memcpy is invisible.
// Each does the real work, then records the ranges it read and wrote.
// (No <string.h> here: its C++ overloads of strchr & co. would clash with ours.)
#include <cstddef>
#include <cstdint>

#include "runtime/libc_access.h"
#include "runtime/real_function.h"
#include "runtime/rt_state.h"

extern "C" {
// glibc's checked variants do the plain operation with an unlimited bound; unlike
// the plain names they are not ours, so no dlsym is needed for the common cases.
void* __memcpy_chk(void*, const void*, size_t, size_t);
void* __memmove_chk(void*, const void*, size_t, size_t);
void* __memset_chk(void*, int, size_t, size_t);
char* __strcpy_chk(char*, const char*, size_t);
char* __strncpy_chk(char*, const char*, size_t, size_t);
char* __strcat_chk(char*, const char*, size_t);
char* __strncat_chk(char*, const char*, size_t, size_t);
void* malloc(size_t);
}

namespace seer::rt {
namespace {

constexpr size_t kNoBound = ~static_cast<size_t>(0);

RealFunction<int (*)(const void*, const void*, size_t)> real_memcmp("memcmp");
RealFunction<int (*)(const void*, const void*, size_t)> real_bcmp("bcmp");
RealFunction<size_t (*)(const char*)> real_strlen("strlen");
RealFunction<size_t (*)(const char*, size_t)> real_strnlen("strnlen");
RealFunction<int (*)(const char*, const char*)> real_strcmp("strcmp");
RealFunction<int (*)(const char*, const char*, size_t)> real_strncmp("strncmp");
RealFunction<char* (*)(const char*, int)> real_strchr("strchr");
RealFunction<char* (*)(const char*, int)> real_strrchr("strrchr");
RealFunction<void* (*)(const void*, int, size_t)> real_memchr("memchr");
RealFunction<char* (*)(int, char*, size_t)> real_strerror_r("strerror_r");
RealFunction<int (*)(int, char*, size_t)> real_xpg_strerror_r("__xpg_strerror_r");

// Bytes a string comparison looked at: up to and including the first difference
// or terminator, at most `limit`.
size_t ComparedBytes(const char* a, const char* b, size_t limit) {
  size_t i = 0;
  while (i < limit && a[i] == b[i] && a[i] != '\0') ++i;
  return i < limit ? i + 1 : limit;
}

}  // namespace
}  // namespace seer::rt

using namespace seer::rt;
using seer::EventKind;

// The interposers must be visible outside the runtime (it is built with
// -fvisibility=hidden): that is how they replace the libc functions.
#pragma GCC visibility push(default)
extern "C" {

void* memcpy(void* dst, const void* src, size_t n) noexcept {
  void* r = __memcpy_chk(dst, src, n, kNoBound);
  RangeRead(src, n, SEER_RT_CALLER_PC());
  RangeWrite(dst, n, SEER_RT_CALLER_PC());
  return r;
}

void* memmove(void* dst, const void* src, size_t n) noexcept {
  void* r = __memmove_chk(dst, src, n, kNoBound);
  RangeRead(src, n, SEER_RT_CALLER_PC());
  RangeWrite(dst, n, SEER_RT_CALLER_PC());
  return r;
}

void* memset(void* dst, int c, size_t n) noexcept {
  void* r = __memset_chk(dst, c, n, kNoBound);
  RangeWrite(dst, n, SEER_RT_CALLER_PC());
  return r;
}

// The compiler's own calls under clang's newer instrumentation.
void* __tsan_memcpy(void* dst, const void* src, size_t n) { return memcpy(dst, src, n); }
void* __tsan_memmove(void* dst, const void* src, size_t n) { return memmove(dst, src, n); }
void* __tsan_memset(void* dst, int c, size_t n) { return memset(dst, c, n); }

int memcmp(const void* a, const void* b, size_t n) noexcept {
  const int r = real_memcmp.get()(a, b, n);
  RangeRead(a, n, SEER_RT_CALLER_PC());
  RangeRead(b, n, SEER_RT_CALLER_PC());
  return r;
}

// clang turns memcmp(...) == 0 into bcmp.
int bcmp(const void* a, const void* b, size_t n) noexcept {
  const int r = real_bcmp.get()(a, b, n);
  RangeRead(a, n, SEER_RT_CALLER_PC());
  RangeRead(b, n, SEER_RT_CALLER_PC());
  return r;
}

void* memchr(const void* s, int c, size_t n) noexcept {
  void* r = real_memchr.get()(s, c, n);
  const size_t seen =
      r != nullptr ? static_cast<size_t>(static_cast<const char*>(r) - static_cast<const char*>(s)) + 1 : n;
  RangeRead(s, seen, SEER_RT_CALLER_PC());
  return r;
}

size_t strlen(const char* s) noexcept {
  const size_t n = real_strlen.get()(s);
  RangeRead(s, n + 1, SEER_RT_CALLER_PC());
  return n;
}

size_t strnlen(const char* s, size_t max) noexcept {
  const size_t n = real_strnlen.get()(s, max);
  RangeRead(s, n < max ? n + 1 : n, SEER_RT_CALLER_PC());
  return n;
}

char* strcpy(char* dst, const char* src) noexcept {
  const size_t n = real_strlen.get()(src) + 1;
  char* r = __strcpy_chk(dst, src, kNoBound);
  RangeRead(src, n, SEER_RT_CALLER_PC());
  RangeWrite(dst, n, SEER_RT_CALLER_PC());
  return r;
}

char* strncpy(char* dst, const char* src, size_t n) noexcept {
  const size_t len = real_strnlen.get()(src, n);
  char* r = __strncpy_chk(dst, src, n, kNoBound);
  RangeRead(src, len < n ? len + 1 : n, SEER_RT_CALLER_PC());
  RangeWrite(dst, n, SEER_RT_CALLER_PC());
  return r;
}

char* strcat(char* dst, const char* src) noexcept {
  const size_t dl = real_strlen.get()(dst);
  const size_t sl = real_strlen.get()(src);
  char* r = __strcat_chk(dst, src, kNoBound);
  RangeRead(dst, dl, SEER_RT_CALLER_PC());
  RangeRead(src, sl + 1, SEER_RT_CALLER_PC());
  RangeWrite(dst + dl, sl + 1, SEER_RT_CALLER_PC());
  return r;
}

char* strncat(char* dst, const char* src, size_t n) noexcept {
  const size_t dl = real_strlen.get()(dst);
  const size_t sl = real_strnlen.get()(src, n);
  char* r = __strncat_chk(dst, src, n, kNoBound);
  RangeRead(dst, dl, SEER_RT_CALLER_PC());
  RangeRead(src, sl < n ? sl + 1 : sl, SEER_RT_CALLER_PC());
  RangeWrite(dst + dl, sl + 1, SEER_RT_CALLER_PC());
  return r;
}

int strcmp(const char* a, const char* b) noexcept {
  const int r = real_strcmp.get()(a, b);
  const size_t n = ComparedBytes(a, b, kNoBound);
  RangeRead(a, n, SEER_RT_CALLER_PC());
  RangeRead(b, n, SEER_RT_CALLER_PC());
  return r;
}

int strncmp(const char* a, const char* b, size_t max) noexcept {
  const int r = real_strncmp.get()(a, b, max);
  const size_t n = ComparedBytes(a, b, max);
  RangeRead(a, n, SEER_RT_CALLER_PC());
  RangeRead(b, n, SEER_RT_CALLER_PC());
  return r;
}

char* strchr(const char* s, int c) noexcept {
  char* r = real_strchr.get()(s, c);
  const size_t n = r != nullptr ? static_cast<size_t>(r - s) + 1 : real_strlen.get()(s) + 1;
  RangeRead(s, n, SEER_RT_CALLER_PC());
  return r;
}

char* strrchr(const char* s, int c) noexcept {
  char* r = real_strrchr.get()(s, c);
  RangeRead(s, real_strlen.get()(s) + 1, SEER_RT_CALLER_PC());
  return r;
}

char* strdup(const char* s) noexcept {
  const size_t n = real_strlen.get()(s) + 1;
  auto* r = static_cast<char*>(malloc(n));  // ours: records the allocation
  if (r == nullptr) return nullptr;
  __memcpy_chk(r, s, n, kNoBound);
  RangeRead(s, n, SEER_RT_CALLER_PC());
  RangeWrite(r, n, SEER_RT_CALLER_PC());
  return r;
}

char* strndup(const char* s, size_t max) noexcept {
  const size_t len = real_strnlen.get()(s, max);
  auto* r = static_cast<char*>(malloc(len + 1));
  if (r == nullptr) return nullptr;
  __memcpy_chk(r, s, len, kNoBound);
  r[len] = '\0';
  RangeRead(s, len < max ? len + 1 : len, SEER_RT_CALLER_PC());
  RangeWrite(r, len + 1, SEER_RT_CALLER_PC());
  return r;
}

// strerror_r writes the message into the caller's buffer (glibc's GNU version
// only for an error it has no static string for, "Unknown error N": it then
// returns the buffer; the XSI version, what <string.h> gives a program built
// without _GNU_SOURCE, always on success), as ThreadSanitizer records it.
char* strerror_r(int error, char* buf, size_t n) noexcept {
  char* r = real_strerror_r.get()(error, buf, n);
  if (r == buf && n != 0) RangeWrite(buf, real_strnlen.get()(buf, n - 1) + 1, SEER_RT_CALLER_PC());
  return r;
}

int __xpg_strerror_r(int error, char* buf, size_t n) noexcept {
  const int rc = real_xpg_strerror_r.get()(error, buf, n);
  if (rc == 0 && n != 0) RangeWrite(buf, real_strnlen.get()(buf, n - 1) + 1, SEER_RT_CALLER_PC());
  return rc;
}

}  // extern "C"
#pragma GCC visibility pop
