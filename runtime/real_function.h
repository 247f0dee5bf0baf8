// Finding the libc function an interposer wraps: the next definition after ours
// (RTLD_NEXT), looked up once and kept. Versioned lookup for the functions glibc
// exports in two versions (pthread_cond_*: plain dlsym would return the old one).
#pragma once

#include <dlfcn.h>

#include <atomic>
#include <cstdlib>

namespace seer::rt {

template <typename F>
class RealFunction {
 public:
  constexpr RealFunction(const char* name, const char* version = nullptr) : name_(name), version_(version) {}

  F get() {
    F f = fn_.load(std::memory_order_acquire);
    if (__builtin_expect(f != nullptr, 1)) return f;
    void* sym = version_ != nullptr ? dlvsym(RTLD_NEXT, name_, version_) : dlsym(RTLD_NEXT, name_);
    if (sym == nullptr) abort();  // libc without the function we interpose: nothing sane to do
    f = reinterpret_cast<F>(sym);
    fn_.store(f, std::memory_order_release);
    return f;
  }

 private:
  const char* name_;
  const char* version_;
  std::atomic<F> fn_{nullptr};
};

}  // namespace seer::rt
