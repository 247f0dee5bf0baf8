// The trace file: one LMDB environment in a single file holding metadata, the
// thread table, the module map, names, counters and zstd-compressed event chunks.
// TraceWriter creates one; TraceReader streams it back in the total order.
// docs/trace-format.md describes the layout on disk.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "seer/event.h"
#include "seer/status.h"

namespace seer {

// The version of the on-disk layout. A reader refuses any other version.
// 2: version 1 plus the tables' checksum (meta::kTablesChecksum).
inline constexpr uint32_t kTraceFormatVersion = 2;

// Well-known metadata keys (values are strings).
namespace meta {
inline constexpr const char* kFormatVersion = "format_version";
inline constexpr const char* kSource = "source";             // "std-import", "gen", "record", ...
inline constexpr const char* kCommandLine = "command_line";  // what was recorded
inline constexpr const char* kHost = "host";
inline constexpr const char* kKernel = "kernel";
inline constexpr const char* kStartTime = "start_time";  // ISO 8601, UTC
inline constexpr const char* kEndTime = "end_time";
inline constexpr const char* kClock = "clock";        // how cross-thread order was decided
inline constexpr const char* kPcKind = "pc_kind";     // "location" (ids) or "address"
inline constexpr const char* kComplete = "complete";  // "1" once the writer closed cleanly
// Set when the writer did not count distinct variables, locations and locks
// (TraceWriterOptions::count_distinct): TraceCounters::distinct_* other than
// threads are 0, and `seer info` counts them from the events.
inline constexpr const char* kDistinctNotCounted = "distinct_not_counted";
// The checksum of every other table record (store/tables.h); kept out of
// TraceInfo::meta by the reader, which checks it.
inline constexpr const char* kTablesChecksum = "tables_checksum";
}  // namespace meta

struct ThreadInfo {
  uint32_t tid = 0;     // dense seer thread id, as in Event::tid
  int64_t os_tid = -1;  // kernel thread id, -1 when unknown (imported traces)
  int64_t parent = -1;  // seer tid of the creating thread, -1 for none
  std::string name;
};

struct ModuleInfo {
  std::string path;
  std::string build_id;  // hex, empty when the module has none
  uint64_t base = 0;     // load address of the mapping
  uint64_t size = 0;
  uint64_t file_offset = 0;  // offset in the file of the mapping's first byte
};

// Counts maintained by the writer and stored with every commit.
struct TraceCounters {
  uint64_t events = 0;
  std::array<uint64_t, kNumEventKinds> by_kind{};
  // Lost events per place of loss ("bpf-ringbuf", "runtime-ring", ...) and kind.
  std::map<std::string, std::array<uint64_t, kNumEventKinds>> lost;
  // Distinct objects seen: threads, locks (lock and cond objects), variables
  // (addresses of plain and atomic accesses), locations (pcs of accesses).
  uint64_t distinct_threads = 0;
  uint64_t distinct_locks = 0;
  uint64_t distinct_variables = 0;
  uint64_t distinct_locations = 0;

  uint64_t TotalLost() const;
};

// When the recorder saw the trace's events: every event with an index below
// `events` had happened `ns` nanoseconds after the recording started. Samples
// are taken once per drain round (at most one per millisecond), so an event's
// time is known to within a round; store/trace_clock.h interpolates.
struct ClockSample {
  uint64_t events = 0;
  uint64_t ns = 0;
};

// Everything in a trace but its events.
struct TraceInfo {
  std::string path;
  uint32_t format_version = 0;
  std::map<std::string, std::string> meta;
  std::vector<ThreadInfo> threads;
  std::vector<ModuleInfo> modules;
  TraceCounters counters;
  uint64_t chunks = 0;
  bool complete = false;  // false: the writer did not close (it or its target died)
  // Ascending in both fields; empty for traces without times (imported,
  // generated, or recorded before seer kept them).
  std::vector<ClockSample> clock;

  std::string Meta(const std::string& key) const {
    auto it = meta.find(key);
    return it == meta.end() ? std::string() : it->second;
  }
};

struct TraceWriterOptions {
  uint32_t events_per_chunk = 1 << 16;
  int zstd_level = 3;
  // Huffman-code literals inside zstd: about 10% smaller traces, several times
  // slower to decode (docs/trace-format.md, "Compression").
  bool entropy_coding = false;
  uint64_t initial_map_size = 64ull << 20;  // grows by doubling as needed
  // Fsync at Close(). Commits survive the death of the writing process either way
  // (they are in the page cache); only an OS crash needs the sync.
  bool sync_on_close = true;
  // > 0: full chunks are encoded and compressed on this many threads of the
  // writer's own while the caller appends the next (commits stay in order, on
  // the caller's thread). They start at the first append, from the appending
  // thread, and so share its scheduling policy.
  int encode_threads = 0;
  // Count distinct variables, locations and locks (TraceCounters): a set
  // lookup per access or lock event whose key is not among the recent ones, a
  // cache miss once the sets are large (a sixth of the recorder's time on
  // memcached, which touches some 60,000 items). The recorder leaves them to
  // `seer info`, which decodes every event anyway (meta::kDistinctNotCounted).
  bool count_distinct = true;
};

// Writes a trace. Not thread-safe: one writer, one thread.
class TraceWriter {
 public:
  // Creates `path` (mode 0600), replacing any file there.
  static Status Create(const std::string& path, const TraceWriterOptions& options, std::unique_ptr<TraceWriter>* out);
  virtual ~TraceWriter() = default;

  // Tables are buffered and committed with the next chunk (or Flush/Close).
  virtual void SetMeta(const std::string& key, const std::string& value) = 0;
  virtual void AddThread(const ThreadInfo& thread) = 0;  // replaces an entry with the same tid
  virtual void AddModule(const ModuleInfo& module) = 0;
  virtual void SetName(Namespace ns, uint64_t id, const std::string& name) = 0;
  virtual void AddLost(const std::string& where, EventKind kind, uint64_t count) = 0;
  // Every event appended so far had happened by `ns` nanoseconds after the
  // recording started (a ClockSample). Later calls must not go back in time;
  // writers may thin samples closer than a millisecond, keeping the last one.
  virtual void AddClockSample(uint64_t ns) = 0;

  // Appends an event; its index is assigned by the writer (the count so far).
  // A full chunk is compressed and committed before this returns.
  virtual Status Append(const Event& event) = 0;

  // Commits the current partial chunk and the buffered tables.
  virtual Status Flush() = 0;
  // Flush, mark the trace complete, sync and close. Call once.
  virtual Status Close() = 0;

  virtual uint64_t events_written() const = 0;
};

// Streams a trace. Holds one chunk in memory at a time.
class TraceReader {
 public:
  // Opens and validates the tables. Errors name the file; exit code 2 material.
  static Status Open(const std::string& path, std::unique_ptr<TraceReader>* out);
  virtual ~TraceReader() = default;

  virtual const TraceInfo& info() const = 0;

  // Name of an object ("" when the trace has none).
  virtual std::string Name(Namespace ns, uint64_t id) const = 0;

  // Decodes the next events in total order into *batch (cleared first); at most a
  // few thousand at a time. An empty batch marks the end of the trace.
  virtual Status Next(std::vector<Event>* batch) = 0;
};

}  // namespace seer
