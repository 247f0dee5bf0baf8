// Turns the BPF tracer's records (struct sync_event, in ring-buffer order) into the
// trace's one total order: timestamp order within a bounded reorder window, then
// exact lock semantics (an acquire waits until the emitted trace says the lock is
// free), thread begin/fork/join/end placed so every edge points forward, and OS
// tids mapped to dense seer tids (first seen, main thread 0).
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <queue>
#include <set>
#include <unordered_map>
#include <vector>

#include "bpf/sync_event.h"
#include "seer/event.h"
#include "seer/status.h"
#include "seer/trace.h"

namespace seer::recorder {

// What the merger had to adjust or drop; stored in the trace's metadata.
struct MergeStats {
  uint64_t unmatched_releases = 0;  // release of a lock the thread did not hold (e.g. taken before attach)
  uint64_t forced = 0;              // events emitted against their gate at the end (lost events)
  uint64_t late = 0;                // arrived after the reorder window had passed them
  uint64_t unknown_joins = 0;       // join of a thread created before recording began
  uint64_t process_forks = 0;       // child processes: not followed
  uint64_t pending_acquires = 0;    // attach mode: still waiting for their lock at the end (dropped)
};

class EventMerger {
 public:
  using Sink = std::function<Status(const Event&)>;

  explicit EventMerger(Sink sink) : sink_(std::move(sink)) {}

  // Declares a thread that exists before any event (the main thread of a launched
  // target, or every thread of an attached one); emits its kThreadBegin.
  Status BeginThread(pid_t os_tid, int64_t parent, const std::string& name);

  // Adds one record to the reorder window.
  void Add(const sync_event& e);

  // Emits, in order, every record with a timestamp at or before `watermark_ns`.
  Status Advance(uint64_t watermark_ns);

  // Attach mode, the target running on: whether thread `os_tid` got past the
  // lock call whose acquire was stamped `stamp` before the end of the trace (it
  // has records after it).
  using RanOnFn = std::function<bool(pid_t os_tid, uint64_t stamp)>;

  // Emits everything left; a record whose gate never opens (its partner was lost)
  // is emitted anyway and counted in stats().forced. `ran_on` (attach mode): an
  // acquire whose thread did not move on after it is still waiting for the lock
  // and is dropped (stats().pending_acquires), not forced against its holder.
  Status Finish(const RanOnFn& ran_on = nullptr);

  // The thread and stamp of the event being delivered to the sink, valid during
  // the sink call: its OS tid and its record's stamp (sync_event.stamp; 0 for a
  // thread's begin, which precedes everything the thread did).
  struct Origin {
    pid_t os_tid = 0;
    uint64_t stamp = SEER_STAMP_NONE;
  };
  const Origin& origin() const { return origin_; }

  // True while records of `os_tid` wait behind a closed gate or an acquire waits
  // for its thread's next record (not emitted yet).
  bool Holds(pid_t os_tid) const { return blocked_.count(os_tid) > 0 || placing_.count(os_tid) > 0; }

  const MergeStats& stats() const { return stats_; }
  // The thread table so far (names from thread exit, or set by SetThreadName).
  std::vector<ThreadInfo> Threads() const;
  void SetThreadName(pid_t os_tid, const std::string& name);
  // OS tids of threads begun and not yet ended.
  std::vector<pid_t> LiveThreads() const;

 private:
  struct Record {
    sync_event e;
    uint64_t seq;
    uint64_t key;  // sort time: e.ts, or for an acquire the time its thread moved on
    bool operator>(const Record& o) const { return key != o.key ? key > o.key : seq > o.seq; }
  };

  struct Thread {
    uint32_t tid = 0;
    bool begun = false;
    bool ended = false;
    int64_t parent = -1;
    pid_t os_tid = 0;
    pid_t last_child = 0;  // the last thread this one cloned: pthread_create's child
    std::string name;
    std::deque<Record> queue;  // records waiting behind a closed gate
  };

  struct Lock {
    uint32_t holder = UINT32_MAX;          // seer tid holding it exclusively
    uint32_t depth = 0;                    // recursive holds of the exclusive holder
    std::map<uint32_t, uint32_t> readers;  // seer tid -> shared holds
  };

  struct Barrier {
    uint64_t count = 0;
    uint64_t arrivals = 0;
    uint64_t departures = 0;
  };

  Thread& ThreadFor(pid_t os_tid);
  uint32_t AssignTid(Thread& t);
  bool CanEmit(const Thread& t, const sync_event& e) const;
  bool CanAcquire(uint64_t lock, uint32_t tid, bool shared) const;
  Status Emit(Thread& t, const sync_event& e);
  Status Put(uint32_t tid, EventKind kind, uint64_t object, uint64_t aux, uint64_t pc, uint8_t mode = 0);
  Status Dispatch(const Record& r);
  Status Retry(bool force);

  Sink sink_;
  uint64_t next_seq_ = 0;
  uint64_t last_released_ts_ = 0;
  std::priority_queue<Record, std::vector<Record>, std::greater<Record>> window_;
  // Per thread, an acquire whose place waits for the thread's next record (see Add).
  std::unordered_map<pid_t, Record> placing_;
  std::unordered_map<pid_t, Thread> threads_;
  std::vector<pid_t> by_tid_;  // seer tid -> os tid
  std::set<pid_t> blocked_;    // threads with a non-empty queue
  std::set<pid_t> announced_;  // cloned, begin not yet emitted
  std::unordered_map<uint64_t, Lock> locks_;
  std::unordered_map<uint64_t, int64_t> sem_tokens_;  // semaphores whose sem_init we saw
  std::unordered_map<uint64_t, Barrier> barriers_;    // barriers whose init we saw
  std::unordered_map<uint64_t, pid_t> handles_;       // pthread_t -> os tid
  MergeStats stats_;
  uint64_t stamp_ = SEER_STAMP_NONE;  // of the record being emitted
  Origin origin_;
};

}  // namespace seer::recorder
