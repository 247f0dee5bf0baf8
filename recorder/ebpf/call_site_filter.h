// Tells the program's own synchronisation from libc's internal use of the same
// primitives: a futex syscall issued inside libc (by pthread_mutex_lock under
// contention, pthread_join, sem_wait, ...) is part of a call seer already records,
// so only futex calls made through libc's syscall() or from outside libc are kept.
// Likewise the dynamic loader takes its own recursive pthread mutex (TLS setup at
// thread creation, dlopen): calls from ld.so are not the program's.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "recorder/proc_maps.h"

namespace seer::recorder {

class CallSiteFilter {
 public:
  // `libc` is the file seer probes; `maps` the target's current mappings.
  // What a look finds adds to what earlier looks found, and nothing is
  // forgotten: libc and the loader do not move in one program's life, while
  // the maps of a process that is exiting show only part of its mappings, or
  // none (Linux reads /proc/PID/maps without stopping the unmapping).
  void Add(const std::string& libc, const std::vector<Mapping>& maps);

  // True when a futex call at user address `ip` is libc's own.
  bool IsLibcInternalFutex(uint64_t ip) const;

  // True when `ip` is in libc's code, its syscall() included: a futex call
  // there is libc's own or, where the runtime interposes syscall(), the
  // runtime's to record.
  bool IsLibcCode(uint64_t ip) const { return Contains(libc_text_, ip); }

  // True when a probed pthread call was made from the dynamic loader.
  bool IsLoaderCall(uint64_t pc) const;

  // True when a lock lives in the dynamic loader's data (its load lock, which
  // libc's dlopen and dl_iterate_phdr take too): the loader's, whoever calls.
  bool IsLoaderLock(uint64_t object) const;

  bool ready() const { return ready_; }

 private:
  struct Range {
    uint64_t start, end;
  };
  static bool Contains(const std::vector<Range>& ranges, uint64_t addr);
  static void Merge(std::vector<Range> found, std::vector<Range>* known);

  bool ready_ = false;
  std::vector<Range> libc_text_;
  std::vector<Range> syscall_fn_;  // libc's syscall(): the program's own futex calls
  std::vector<Range> loader_text_;
  std::vector<Range> loader_data_;
};

}  // namespace seer::recorder
