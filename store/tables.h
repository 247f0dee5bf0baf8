// The small tables of a trace (threads, modules, counters) and their stored form:
// one JSON document per record, so that they stay readable with mdb_dump and can
// gain fields without a format change. Events never go through here.
#pragma once

#include <string>
#include <string_view>

#include "seer/status.h"
#include "seer/trace.h"

namespace seer::store {

// Names of the LMDB databases inside a trace file.
namespace db {
inline constexpr const char* kMeta = "meta";          // key -> string value
inline constexpr const char* kThreads = "threads";    // u32 BE tid -> JSON ThreadInfo
inline constexpr const char* kModules = "modules";    // u32 BE index -> JSON ModuleInfo
inline constexpr const char* kNames = "names";        // u8 namespace + u64 BE id -> name
inline constexpr const char* kCounters = "counters";  // "all" -> JSON TraceCounters
inline constexpr const char* kChunks = "chunks";      // u64 BE chunk number -> chunk
inline constexpr const char* kClock = "clock";        // u64 BE event count -> u64 BE ns (ClockSample)
}  // namespace db

std::string EncodeThread(const ThreadInfo& t);
Status DecodeThread(const std::string& s, ThreadInfo* t);
std::string EncodeModule(const ModuleInfo& m);
Status DecodeModule(const std::string& s, ModuleInfo* m);
std::string EncodeCounters(const TraceCounters& c);
Status DecodeCounters(const std::string& s, TraceCounters* c);

std::string NameKey(Namespace ns, uint64_t id);

// `s` fit for a one-line message: a damaged record may hold any bytes, newlines
// included; those outside printable ASCII become '?'.
std::string Printable(std::string_view s);

// The tables' checksum: the sum (mod 2^64) of TableRecordHash over every record
// of meta (but meta::kTablesChecksum itself), threads, modules, names,
// counters and clock. A sum, so the writer updates it per record it adds or replaces; the
// reader recomputes it at open. Chunks carry their own (zstd) checksum.
uint64_t TableRecordHash(std::string_view table, std::string_view key, std::string_view value);
std::string FormatTablesChecksum(uint64_t sum);  // 16 hex digits
bool ParseTablesChecksum(const std::string& text, uint64_t* sum);

}  // namespace seer::store
