// The operations of the STD text trace format (RAPID's `thread|op(decor)|loc`)
// and how each maps to a seer event kind. Shared by the importer and the
// exporter so that the two can never disagree. docs/trace-format.md has the table.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "seer/event.h"

namespace seer::interop::std_format {

// What the decoration between the parentheses names.
enum class Decor {
  kNone,      // no decoration: `begin`, `end`, `branch`, ...
  kThread,    // a thread name (fork, join)
  kLock,      // a lock or other sync object name
  kVariable,  // a variable name
  kNumber,    // a decimal integer (func_entry: the entered function)
  kOrder,     // a memory order name (fence: `fence(release)`)
};

// RAPID's own ops: r w acq rel fork join begin end. Every other kind is written
// with its seer name (EventKindName), which RAPID does not read.
bool IsRapidKind(EventKind kind);

// "r", "acq", ... for RAPID's kinds, EventKindName otherwise.
std::string_view OpName(EventKind kind);
std::optional<EventKind> KindOfOp(std::string_view op);

Decor DecorOf(EventKind kind);

// The values of the `order=` attribute of atomic accesses (seer's MemoryOrder):
// relaxed, consume, acquire, release, acq_rel, seq_cst.
std::string_view MemoryOrderName(uint8_t order);
std::optional<uint8_t> MemoryOrderFromName(std::string_view name);

// The values of the `region=` attribute of `alloc` (seer's AllocRegion): heap
// (the default), stack, tls.
std::string_view AllocRegionName(uint8_t region);
std::optional<uint8_t> AllocRegionFromName(std::string_view name);

// Names of threads, locks and variables must be non-empty and free of `|`, `(`,
// `)` and whitespace, or the line cannot be split back.
bool IsValidName(std::string_view name);

}  // namespace seer::interop::std_format
