#include "interop/std_ops.h"

#include <iterator>

namespace seer::interop::std_format {

bool IsRapidKind(EventKind kind) {
  switch (kind) {
    case EventKind::kRead:
    case EventKind::kWrite:
    case EventKind::kAcquire:
    case EventKind::kRelease:
    case EventKind::kFork:
    case EventKind::kJoin:
    case EventKind::kAtomicBegin:
    case EventKind::kAtomicEnd: return true;
    default: return false;
  }
}

std::string_view OpName(EventKind kind) {
  switch (kind) {
    case EventKind::kRead: return "r";
    case EventKind::kWrite: return "w";
    case EventKind::kAcquire: return "acq";
    case EventKind::kRelease: return "rel";
    case EventKind::kFork: return "fork";
    case EventKind::kJoin: return "join";
    case EventKind::kAtomicBegin: return "begin";
    case EventKind::kAtomicEnd: return "end";
    default: return EventKindName(kind);
  }
}

std::optional<EventKind> KindOfOp(std::string_view op) {
  // The four ops of nearly every line first: this runs once per line.
  if (op == "r") return EventKind::kRead;
  if (op == "w") return EventKind::kWrite;
  if (op == "acq") return EventKind::kAcquire;
  if (op == "rel") return EventKind::kRelease;
  if (op == "fork") return EventKind::kFork;
  if (op == "join") return EventKind::kJoin;
  if (op == "begin") return EventKind::kAtomicBegin;
  if (op == "end") return EventKind::kAtomicEnd;
  auto kind = EventKindFromName(op);
  // RAPID's kinds have exactly one spelling: "read(x)" is not a synonym of "r(x)".
  if (kind && IsRapidKind(*kind)) return std::nullopt;
  return kind;
}

Decor DecorOf(EventKind kind) {
  switch (kind) {
    case EventKind::kRead:
    case EventKind::kWrite:
    case EventKind::kAtomicLoad:
    case EventKind::kAtomicStore:
    case EventKind::kAtomicRmw:
    case EventKind::kAlloc:
    case EventKind::kFree:
    case EventKind::kWatchSample: return Decor::kVariable;
    case EventKind::kAcquire:
    case EventKind::kRelease:
    case EventKind::kCondWaitBegin:
    case EventKind::kCondWaitEnd:
    case EventKind::kSignal:
    case EventKind::kWait:
    case EventKind::kBarrierArrive:
    case EventKind::kBarrierDepart:
    case EventKind::kLockWait:
    case EventKind::kLockRequest: return Decor::kLock;
    case EventKind::kFork:
    case EventKind::kJoin:
    case EventKind::kWatchHit: return Decor::kThread;
    case EventKind::kFuncEntry: return Decor::kNumber;
    case EventKind::kFence: return Decor::kOrder;
    case EventKind::kThreadBegin:
    case EventKind::kThreadEnd:
    case EventKind::kFuncExit:
    case EventKind::kBranch:
    case EventKind::kAtomicBegin:
    case EventKind::kAtomicEnd: return Decor::kNone;
  }
  return Decor::kNone;
}

namespace {
constexpr std::string_view kOrderNames[] = {"relaxed", "consume", "acquire", "release", "acq_rel", "seq_cst"};
constexpr std::string_view kRegionNames[] = {"heap", "stack",    "tls",   "fd",
                                             "new",  "fd-reset", "fd-dup"};  // by AllocRegion

template <size_t N>
std::optional<uint8_t> IndexOf(const std::string_view (&names)[N], std::string_view name) {
  for (size_t i = 0; i < N; ++i)
    if (names[i] == name) return static_cast<uint8_t>(i);
  return std::nullopt;
}
}  // namespace

std::string_view MemoryOrderName(uint8_t order) {
  return order < std::size(kOrderNames) ? kOrderNames[order] : "unknown";
}

std::optional<uint8_t> MemoryOrderFromName(std::string_view name) { return IndexOf(kOrderNames, name); }

std::string_view AllocRegionName(uint8_t region) {
  return region < std::size(kRegionNames) ? kRegionNames[region] : "unknown";
}

std::optional<uint8_t> AllocRegionFromName(std::string_view name) { return IndexOf(kRegionNames, name); }

bool IsValidName(std::string_view name) {
  if (name.empty()) return false;
  for (char c : name) {
    if (c == '|' || c == '(' || c == ')' || c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\v' || c == '\f')
      return false;
  }
  return true;
}

}  // namespace seer::interop::std_format
