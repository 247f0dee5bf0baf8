// Turns the runtime's ring records, copied out in batches by RingCollector, into
// one ordered stream of seer Events: a topological merge of the per-thread
// streams (program order) with the per-domain orders of the ordered records
// (sync events, atomics, alloc/free), each thread's plain accesses between its
// own ordered records. docs/runtime.md ("Ordering") has the details.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <vector>

#include "recorder/merge/ring_collector.h"
#include "seer/event.h"
#include "seer/ring_layout.h"
#include "seer/ring_record.h"
#include "seer/status.h"
#include "seer/trace.h"
#include "store/repeated_run.h"

namespace seer::recorder {

class RingMerger {
 public:
  // `shm` (for the thread table and loss counters) must outlive the merger.
  explicit RingMerger(rt::ShmHeader* shm);

  using Sink = std::function<Status(const Event&)>;

  // Takes a batch (batches in the order collected) and delivers to `sink`
  // everything that can be ordered now; after a final batch, everything.
  // *emitted (optional): events delivered.
  Status Add(RingBatch* batch, const Sink& sink, uint64_t* emitted = nullptr);

  // The same, the events handed to `sink` in runs of up to kRunEvents (in
  // order; origin() means nothing then): one call per run instead of one per
  // event, for a sink that only stores them (the in-process recording's writer).
  //
  // Repeats: a thread's plain records between two of its ordered records (a
  // segment: a loop body between two synchronisation events) are often the
  // very words of its previous segment. Such a segment (the pc rule's last pc
  // and the thread the same too) is not decoded again: its events, decoded
  // when it first repeated, go to the sink as a run of their own with
  // `repeat` set (the same object for every repeat of that segment); the sink
  // may hand it to RunAppender::AppendRepeat. Other runs have `repeat` null.
  using RunSink =
      std::function<Status(const Event* events, size_t n, const std::shared_ptr<const store::RepeatedRun>& repeat)>;
  static constexpr size_t kRunEvents = 1024;
  Status AddRuns(RingBatch* batch, const RunSink& sink, uint64_t* emitted = nullptr);
  // Off: no run is a repeat (for tests and benchmarks that compare), but
  // those the runtime marked (below). Leave it off where the runtime marks
  // repeats (kOptionRepeatMarks): a segment found equal here would be handed
  // on without its reference mark being seen.
  //
  // Repeat marks (ring_record.h, kSegmentRefKind): the runtime names a
  // thread's reference segment and replaces each repeat of it by a mark. The
  // merger keeps the reference's words, decodes them once at their first
  // repeat and hands every repeat on as that RepeatedRun (one event at a time
  // to a Sink). Always understood; a mark that names no reference it holds is
  // damage.
  void DetectRepeats(bool on) { repeats_ = on; }
  // Segments delivered as repeats so far.
  uint64_t repeats() const { return repeats_delivered_; }
  // Segments of fewer or more words are never compared: a short one saves
  // less than its separate run costs, a long one is copied for nothing if it
  // does not repeat (and a ring keeps its last: at most 8 KB of words and
  // 40 KB of events). The upper bound is ChunkEncoder's for its templates.
  static constexpr size_t kMinRepeatWords = 8;
  static constexpr size_t kMaxRepeatWords = 1024;
  // After kRepeatMisses whole segments of a ring in a row that did not
  // repeat, only two (consecutive) in kRepeatStride are compared and kept: a
  // thread whose segments never repeat costs the comparison and the copy of
  // its words that much less, one whose segments start repeating is caught
  // within kRepeatStride segments. (A repeat need not be of the segment just
  // before: any whole segment kept before, from the same last pc, will do.)
  static constexpr uint32_t kRepeatMisses = 4;
  static constexpr uint32_t kRepeatStride = 16;

  // An event from outside the rings, for the thread of ring `ring`: the eBPF
  // futex tracepoints' records in a preloaded recording. It goes just before
  // the ring-absolute word `word` (the thread's record count when it happened:
  // its place in program order), and after every external event of a lower
  // `number` (0, 1, 2, ... in the order they happened, across threads: a wake
  // before the wait it ended). Given before the batch that holds `word`; one
  // given later (its place already delivered) is delivered at the ring's
  // current place and counted in external_late().
  void AddExternal(uint32_t ring, uint64_t word, uint64_t number, const Event& event);
  uint64_t external_late() const { return external_late_; }

  // Numbers the final merge found missing (a thread killed between taking a
  // number and publishing its record), and skipped.
  uint64_t order_gaps() const { return order_gaps_; }

  // Where the event being delivered to the sink comes from: its ring and the
  // ring-absolute word index of its record. Valid during the sink call.
  struct Origin {
    uint32_t ring = 0;
    uint64_t word = 0;
  };
  const Origin& origin() const { return origin_; }

  // Ring-absolute index of ring `ring`'s first word not delivered yet: every
  // record the ring's thread wrote below it has reached the sink.
  uint64_t Delivered(uint32_t ring) const { return ring < rings_.size() ? rings_[ring].base + rings_[ring].pos : 0; }

  // Ring reuse (docs/runtime.md, "Ring reuse"): from now on, after each batch,
  // the ring of a thread whose kThreadEnd was delivered goes back to the
  // runtime (kRingReturned) once the thread is joined or detached and every
  // word it wrote has been delivered. The ring's next records are a new
  // thread's (a new tid from its fork or first record on); a join merged
  // after the give-back still names the thread that ended. Off by default: the
  // eBPF recording's joiner names threads by ring for the whole run.
  void ReuseRings() { reuse_ = true; }
  // Rings given back so far.
  uint64_t rings_returned() const { return rings_returned_; }

  // The thread table: one entry per thread that appeared in the stream, those
  // whose ring went back to the runtime included.
  std::vector<ThreadInfo> Threads() const;

  // Records dropped by producers on overflow, by kind, summed over rings.
  std::vector<uint64_t> LostByKind() const;
  // Threads that found no free ring (all their events are lost).
  uint64_t ThreadsWithoutRing() const;

 private:
  enum class Wait { kNone, kReady, kBlocked };
  // A ring's last whole segment (see RunSink), for repeats.
  struct LastSegment {
    std::vector<uint64_t> words;  // its records (not in the spool arena: kept long)
    uint64_t start_pc = 0;        // the pc rule's last pc before it
    uint32_t tid = 0;
    // Once it repeated: its events (a new object for each new segment: the
    // writer may still hold the last one), and the last pc after it.
    std::shared_ptr<const store::RepeatedRun>
        run;  // const: handed to the sink with no converted copy (two atomic counts per repeat)
    uint64_t end_pc = 0;
  };
  struct Pending {
    RingWords words;      // copied, not yet delivered
    uint64_t base = 0;    // ring-absolute index of words[0]
    size_t pos = 0;       // next word to deliver
    size_t scan = 0;      // words before this (from pos) are plain records
    int64_t tid = -1;     // dense seer thread id, -1 until the thread appears
    int64_t parent = -1;  // the tid that forked it, -1 until its fork was delivered
    // Given back to the runtime: `tid` still names the ended thread (for a join
    // delivered late), until the ring's next thread appears (TidOf).
    bool returned = false;
    uint64_t last_pc = 0;                 // the pc rule's last pc (ring_record.h)
    Wait wait = Wait::kNone;              // kNone: no ordered record found yet at `scan`
    bool at_external = false;             // the ordered record at `scan` is external.front()
    bool segment_start = false;           // `pos` is just past an ordered record: a segment begins there
    std::unique_ptr<LastSegment> last;    // repeats: the ring's last whole segment
    std::unique_ptr<LastSegment> marked;  // repeat marks: the reference segment the runtime named
    uint32_t repeat_misses = 0;           // whole segments in a row that did not repeat
    uint32_t repeat_skip = 0;             // whole segments to pass over before comparing again
    struct External {
      uint64_t word;
      uint64_t number;
      Event event;
    };
    std::deque<External> external;  // by word (one thread's, in program order)
  };
  // The external events' order domain, after the runtime's.
  static constexpr uint32_t kExternalDomain = rt::kDomains;

  // Finds ring `ring`'s next ordered record and files the ring as ready (its
  // domain has reached its number) or blocked (listed under the domain it waits for).
  Status Examine(uint32_t ring);
  // Delivers ring `ring`'s plain records up to its next ordered one (or the end).
  Status EmitPlain(uint32_t ring, const Sink& sink);
  // Repeats: looks at the whole segment at the ring's position. *done: it
  // repeated the last one, whose events were delivered; *keep: it repeated it
  // for the first time, and EmitPlain keeps its events as it delivers them.
  Status EmitRepeat(uint32_t ring, uint32_t tid, bool* done, LastSegment** keep);
  // Repeat marks: takes the segment [begin, at) of ring `ring` (a reference
  // mark at `at`; `whole`: it began just past an ordered record, where the
  // last pc was `start_pc`) as the ring's reference.
  Status MarkReference(uint32_t ring, uint32_t tid, size_t begin, size_t at, bool whole, uint64_t start_pc);
  // Repeat marks: delivers the reference's events for the repeat mark at the
  // ring's position (`whole`: alone in its segment).
  Status EmitMarkedRepeat(uint32_t ring, uint32_t tid, bool whole, const Sink& sink);
  // Delivers `seg`'s events (decoded already: seg.run) for the repeat at the
  // ring's position, up to its next ordered record: as one run to the run
  // sink if there is one, else one by one to `sink`.
  Status DeliverRepeat(uint32_t ring, const LastSegment& seg, const Sink* sink);
  // Delivers the ordered record at the ring's position and advances its domain.
  Status EmitOrdered(uint32_t ring, const Sink& sink);
  // Files ring `ring` as waiting for domain `domain`.
  void Block(uint32_t domain, uint32_t ring) {
    blocked_[domain].push_back(ring);
    domains_[domain].blocked = true;
  }
  // Domain `domain` moved on: examines again the rings that waited for it.
  Status Unblock(uint32_t domain);
  // Final merge only: skips the smallest missing number a blocked ring waits for.
  bool SkipGap();
  // The tid of the thread writing ring `ring` now (a returned ring's next thread).
  // Inline for the ring whose thread is known (every event but a thread's first).
  uint32_t TidOf(uint32_t ring) {
    if (ring < rings_.size() && rings_[ring].tid >= 0 && !rings_[ring].returned) [[likely]]
      return static_cast<uint32_t>(rings_[ring].tid);
    return NewTidOf(ring);
  }
  uint32_t NewTidOf(uint32_t ring);
  // The thread table entry of ring `ring`'s thread, from its descriptor.
  ThreadInfo InfoOf(uint32_t ring) const;
  // Reuse: gives back the rings listed in ended_ that are done with.
  void ReturnEndedRings();
  // Where the next event is built: its slot in the current run when AddRuns
  // is at work, else `local`. Built aside, its copy into the run (16-byte
  // loads of fields just stored in 8, 4 and 1 bytes) stalled on store
  // forwarding: a quarter of EmitOrdered's samples on memcached.
  Event& Slot(Event* local) { return run_sink_ != nullptr ? run_[run_size_] : *local; }
  // Hands on `e`, built in Slot(): to `sink`, or the run keeps it.
  Status Deliver(const Sink& sink, const Event& e) {
    if (run_sink_ == nullptr) return sink(e);
    return ++run_size_ < kRunEvents ? Status::Ok() : FlushRun();
  }
  Status FlushRun();
  Status Damaged(uint32_t ring, size_t pos, const std::string& what) const;

  rt::ShmHeader* shm_;
  std::vector<Pending> rings_;
  // Per domain, what every ordered record looks at: the number due next, and
  // whether rings wait in blocked_. One line for both: with a domain per
  // mutex the domains are spread over 600 KB, and looking at the blocked list
  // itself (24 bytes a domain, 900 KB) was a second cache miss per record.
  struct DomainState {
    uint64_t next = 0;
    bool blocked = false;
  };
  std::vector<DomainState> domains_;
  std::vector<std::vector<uint32_t>> blocked_;  // per domain: rings waiting for it
  std::vector<uint32_t> unblocking_;            // Unblock's: a domain's list being examined again
  std::vector<uint32_t> ready_;                 // rings whose ordered record is due
  size_t ready_pos_ = 0;
  uint32_t next_tid_ = 0;
  uint64_t delivered_ = 0;
  uint64_t order_gaps_ = 0;
  uint64_t external_late_ = 0;
  bool reuse_ = false;
  std::vector<uint32_t> ended_;      // reuse_: rings whose kThreadEnd was delivered, not given back yet
  std::vector<ThreadInfo> retired_;  // the threads of rings given back
  uint64_t rings_returned_ = 0;
  bool final_ = false;  // the final batch was added: external events past a ring's end go at its end
  Origin origin_;
  const RunSink* run_sink_ = nullptr;  // set while AddRuns runs
  // The current run: kRunEvents slots, run_size_ of them filled. Not a vector:
  // its per-event capacity check and value-initialisation of each Event cost a
  // fifth of EmitPlain's instructions.
  std::unique_ptr<Event[]> run_;
  size_t run_size_ = 0;
  bool repeats_ = true;
  uint64_t repeats_delivered_ = 0;
};

}  // namespace seer::recorder
