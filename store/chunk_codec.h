// Encoding of one chunk of events: the unit the writer compresses and commits and
// the reader decompresses and decodes. Chunks are independent (delta state starts
// afresh in each), so damage stays local and a reader can stop at any chunk.
// The byte layout is specified in docs/trace-format.md.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "seer/event.h"
#include "seer/status.h"
#include "store/repeated_run.h"

namespace seer::store {

class SiteTable;

// Thread ids at or above this are rejected: they would make the per-thread delta
// state of the codec (and every analysis's clocks) absurdly large.
inline constexpr uint32_t kMaxThreads = 1u << 20;

// Objects are delta-coded per class (memory, sync, thread, code, other): see
// chunk_codec.cc.
inline constexpr int kObjectClasses = 5;

// Size of the fixed header in front of a chunk's zstd frame.
inline constexpr size_t kChunkHeaderSize = 16;

class ChunkEncoder {
 public:
  ChunkEncoder();
  ~ChunkEncoder();
  ChunkEncoder(const ChunkEncoder&) = delete;
  ChunkEncoder& operator=(const ChunkEncoder&) = delete;

  // The event's tid must be below kMaxThreads (the writer checks).
  void Add(const Event& e);
  // The same for events[0..n), in one loop: what the writer calls.
  void AddRun(const Event* events, size_t n);
  // The same bytes as AddRun(run->events), for a run that may repeat an
  // earlier one of its thread event for event (a loop body between two of the
  // thread's synchronisation events). The encoder keeps the last such run of
  // each thread with a template of its encoding: the bytes of every event
  // whose encoding depends only on the run's own earlier events, and what the
  // others (the run's first event, the first at each site and object class)
  // read from the state before the run. A run equal to the kept one (the same
  // pointer, or the same events compared in full) is encoded from the
  // template: the dependent events afresh, the rest copied. Any other run is
  // encoded as AddRun does and kept; its template is made when it comes a
  // second time (none if more than half its events are dependent).
  void AddRepeat(const std::shared_ptr<const RepeatedRun>& run);
  // Off: AddRepeat is AddRun (for tests that compare the two).
  void set_use_templates(bool on) { use_templates_ = on; }
  // Runs encoded from a template so far.
  uint64_t template_hits() const { return template_hits_; }
  uint32_t count() const { return count_; }
  size_t raw_bytes() const { return raw_size_; }

  // Compresses the chunk into *out (header + zstd frame with checksum) and resets
  // the encoder for the next chunk. entropy_coding: let zstd Huffman-code the
  // literals (smaller, slower to read).
  Status Finish(uint64_t first_index, int zstd_level, bool entropy_coding, std::string* out);

 private:
  struct ThreadState;
  struct RunTemplate;

  // Makes room in raw_ for n more events of the longest encoding.
  void Reserve(size_t n);
  // Encodes the run with AddRun and keeps it as *t.
  void EncodeAndKeep(const std::shared_ptr<const RepeatedRun>& run, RunTemplate* t);
  // Encodes t's run (equal to the events given) from the template.
  void EncodeFromTemplate(const RunTemplate& t);

  std::vector<uint8_t> raw_;  // the chunk's events, encoded: raw_size_ bytes of it
  size_t raw_size_ = 0;
  uint32_t count_ = 0;
  uint32_t last_tid_ = 0;
  std::vector<ThreadState> threads_;
  std::unique_ptr<SiteTable> sites_;
  void* cctx_;  // ZSTD_CCtx, kept across chunks
  // Per thread (direct-mapped by tid), its last repeatable run. Kept across
  // chunks: a template depends only on its run's events, never on the state
  // before it.
  std::vector<std::unique_ptr<RunTemplate>> templates_;
  bool use_templates_ = true;
  uint64_t template_hits_ = 0;
};

class ChunkDecoder {
 public:
  ChunkDecoder();
  ~ChunkDecoder();
  ChunkDecoder(const ChunkDecoder&) = delete;
  ChunkDecoder& operator=(const ChunkDecoder&) = delete;

  // Decompresses and checks a stored chunk value. Errors are Corruption with the
  // reason; the caller adds the file and chunk number.
  Status Load(std::string_view value);

  uint64_t first_index() const { return first_index_; }
  uint32_t event_count() const { return event_count_; }
  uint32_t remaining() const { return event_count_ - decoded_; }

  // Decodes the next `n` (<= remaining()) events of the loaded chunk into out[0..n).
  Status Decode(uint32_t n, Event* out);
  // Appends up to `max` more events of the loaded chunk to *out.
  Status Decode(uint32_t max, std::vector<Event>* out);

 private:
  struct ThreadState {
    uint64_t object[kObjectClasses] = {};  // last object per object class
    uint64_t aux[kObjectClasses] = {};     // last aux per object class
    uint64_t pc = 0;
  };
  struct Cursor;
  template <bool kChecked>
  const char* DecodeOne(Cursor* c, Event* e);

  std::string raw_;
  const uint8_t* pos_ = nullptr;
  const uint8_t* end_ = nullptr;
  uint64_t first_index_ = 0;
  uint32_t event_count_ = 0;
  uint32_t decoded_ = 0;
  uint32_t cur_tid_ = 0;
  ThreadState* cur_ = nullptr;  // state of cur_tid_; re-pointed when threads_ grows
  std::vector<ThreadState> threads_;
  std::unique_ptr<SiteTable> sites_;
  void* dctx_;  // ZSTD_DCtx
};

}  // namespace seer::store
