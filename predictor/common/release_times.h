// Rule (a)'s memory for the lock-based predictive engines (WCP, CP): for one
// lock and one variable, the HB times of the latest releases of critical
// sections that read or wrote the variable, kept per releasing thread so that a
// thread meets only other threads' releases (conflicts are between threads;
// RAPID does the same).
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "predictor/common/clock_snapshot.h"
#include "predictor/common/vector_clock.h"

namespace seer::predictor {

// The join of one thread's releases is the HB time of its latest release, and
// every clock joined into a predecessor clock is closed under HB (knowing an
// event's local time means knowing its whole HB time), so a clock whose entry
// for `tid` is at least `latest` already includes it: the join can be skipped.
struct ThreadRelease {
  uint32_t tid = 0;
  ClockValue latest = 0;   // clock(tid): local time of the release
  ClockSnapshotRef clock;  // its HB time; empty: none
};

// Write-mode sections of one lock are HB-ordered (each acquire joins the last
// release), so the join of every other thread's release is the latest release
// by a thread other than the accessing one: the latest of all, or for that
// release's own thread the latest by anyone else. Two entries instead of one
// per thread keep rule (a) constant-time however many threads take the lock.
struct LatestReleases {
  ThreadRelease last, before;  // before.tid != last.tid
  void Publish(const ThreadRelease& c) {
    if (c.tid != last.tid && last.clock) before = last;
    last = c;
  }
  const ThreadRelease* OtherThan(uint32_t tid) const {
    const ThreadRelease& c = last.tid != tid ? last : before;
    return c.clock ? &c : nullptr;
  }
};

struct ReleaseTimes {
  LatestReleases reads, writes;                            // write-mode sections
  std::vector<ThreadRelease> shared_reads, shared_writes;  // read-mode sections: not ordered, one per thread
  uint64_t read_mark = 0, write_mark = 0;                  // last section that listed the variable (dedup)

  // A section released by `c.tid` read (`writes` false) or wrote the variable.
  void Publish(const ThreadRelease& c, bool writes, bool shared) {
    if (!shared) {
      (writes ? this->writes : reads).Publish(c);
      return;
    }
    std::vector<ThreadRelease>& by_thread = writes ? shared_writes : shared_reads;
    auto mine =
        std::find_if(by_thread.begin(), by_thread.end(), [&](const ThreadRelease& r) { return r.tid == c.tid; });
    if (mine == by_thread.end()) {
      by_thread.push_back(c);
    } else {
      *mine = c;
    }
  }

  // Calls fn(const ThreadRelease&) for the releases of other threads' sections
  // that an access (`write` or not) by `tid` inside a section (read-mode when
  // `in_shared`) conflicts with. A read-mode section excludes only write-mode
  // ones, so it meets only their releases.
  template <typename Fn>
  void ForEachConflicting(uint32_t tid, bool write, bool in_shared, Fn&& fn) const {
    if (const ThreadRelease* c = writes.OtherThan(tid)) fn(*c);
    if (write)
      if (const ThreadRelease* c = reads.OtherThan(tid)) fn(*c);
    if (in_shared) return;
    auto others = [&](const std::vector<ThreadRelease>& clocks) {
      for (const ThreadRelease& c : clocks)
        if (c.tid != tid) fn(c);
    };
    others(shared_writes);
    if (write) others(shared_reads);
  }
};

}  // namespace seer::predictor
