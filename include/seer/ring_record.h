// The records a thread appends to its ring, as 8-byte words. A plain access
// takes one word when its pc is near the thread's last pc (compact record; the
// pc rule below says which pc that is), two otherwise (short record, also used
// for function entry/exit and small ranges); these carry no timestamp. Everything that
// orders threads (sync events, atomics, alloc/free) takes a long record of three
// to five words (a lock's acquire or release: three) and carries a number from
// one of the runtime's order domains. Shared by the runtime and
// the drainer, which both follow the pc rule below through these helpers;
// docs/runtime.md ("Record formats", "Ordering") explains. Records start at any
// word, so the writer masks every word's index (a record may straddle the end).
#pragma once

#include <cstdint>

#include "seer/event.h"

namespace seer::rt {

// Compact record (one word): bit 63 = 0, bit 62 = 1, bit 61 = is-write,
//               bits 60..58 = log2(size) (size 1, 2, 4, 8 or 16), bits 57..48 =
//               pc offset (see below), bits 47..0 = object.
// Short record: w0 = kind << 56 | size << 48 | object (48 bits), w1 = pc; kinds
//               are below 64, so bit 62 is clear.
// Long record:  w0 = 1 << 63 | has-aux << 62 | has-after << 61 | kind << 56
//               (5 bits) | mode << 48 | object (48 bits), w1 = pc, w2 = order
//               word (kNoSeq for ranges too big for a short record), then aux
//               if it is not 0, then "after" if it is not 0: the event follows
//               every global-domain event numbered below it (see docs). Absent
//               words read as 0. Lock events have neither (but a trylock's or
//               timed lock's acquire has aux, its AcquireHow), so the commonest
//               long record is three words.
inline constexpr int kCompactWords = 1;
inline constexpr int kShortWords = 2;
inline constexpr int kMinLongWords = 3;
inline constexpr int kMaxLongWords = 5;
inline constexpr uint64_t kLongFlag = 1ull << 63;
inline constexpr uint64_t kLongAuxFlag = 1ull << 62;
inline constexpr uint64_t kLongAfterFlag = 1ull << 61;
inline constexpr uint64_t kObjectMask = (1ull << 48) - 1;
inline constexpr uint64_t kMaxShortSize = 255;
inline constexpr uint64_t kNoSeq = ~0ull;

// Order domains. Each has its own counter in the target; an ordered record
// carries domain << 48 | the number it took. Numbers of one domain are taken in
// the order the events took effect, so the merger can order the records of one
// domain exactly and needs nothing across domains but program order.
//   0: the global domain (thread lifecycle, cond/sem/barrier/once signalling,
//      alloc/free: rare events, or ones whose objects may overlap under
//      different addresses);
//   1 .. kLockShards: locks, by a hash of the lock's address (the number is
//      taken while the lock is held, so acquire/release of one lock are exact);
//   then kAtomicStripes: atomics, by the stripe of their address (the number is
//      taken under the stripe's spinlock, with the operation);
//   then kMutexDomains: mutexes, one domain per mutex instance, handed out at
//      its first use (runtime/mutex_order.h; the number is taken while the
//      mutex is held, from a counter in the mutex itself). Once they are all
//      taken, later mutexes use their lock shard.
inline constexpr uint32_t kLockShards = 4096;
inline constexpr uint32_t kAtomicStripes = 1024;
inline constexpr uint32_t kMutexDomains = 32768;
inline constexpr uint32_t kGlobalDomain = 0;
inline constexpr uint32_t kFirstLockDomain = 1;
inline constexpr uint32_t kFirstAtomicDomain = kFirstLockDomain + kLockShards;
inline constexpr uint32_t kFirstMutexDomain = kFirstAtomicDomain + kAtomicStripes;
inline constexpr uint32_t kDomains = kFirstMutexDomain + kMutexDomains;
static_assert(kDomains <= 1u << 16, "an order word keeps 16 bits of domain");
inline constexpr int kCounterBits = 48;

inline constexpr uint64_t OrderWord(uint32_t domain, uint64_t number) {
  return static_cast<uint64_t>(domain) << kCounterBits | (number & kObjectMask);
}
inline constexpr uint32_t OrderDomain(uint64_t order) { return static_cast<uint32_t>(order >> kCounterBits); }
inline constexpr uint64_t OrderNumber(uint64_t order) { return order & kObjectMask; }

// Fibonacci hashing of a lock's address: neighbouring locks (arrays of mutexes)
// land in different shards.
inline constexpr uint32_t LockDomain(uint64_t addr) {
  return kFirstLockDomain + static_cast<uint32_t>(((addr >> 3) * 0x9E3779B97F4A7C15ull) >> 52);
}
static_assert(kLockShards == 1u << 12, "LockDomain keeps the top 12 bits of the hash");

inline constexpr uint64_t ShortHead(uint8_t kind, uint64_t size, uint64_t object) {
  return static_cast<uint64_t>(kind) << 56 | size << 48 | (object & kObjectMask);
}
static_assert(kNumEventKinds <= 32, "a long record keeps five bits of kind");

// The words a long record with this aux and after takes.
inline constexpr int LongWords(uint64_t aux, uint64_t after) { return kMinLongWords + (aux != 0) + (after != 0); }
inline constexpr uint64_t LongHead(uint8_t kind, uint8_t mode, uint64_t object, uint64_t aux, uint64_t after) {
  return kLongFlag | (aux != 0 ? kLongAuxFlag : 0) | (after != 0 ? kLongAfterFlag : 0) |
         static_cast<uint64_t>(kind & 0x1f) << 56 | static_cast<uint64_t>(mode) << 48 | (object & kObjectMask);
}

// The pc rule. Writer and reader each keep, per ring, a last pc: 0 at first;
// after a plain read/write record (compact or short), its pc; after a function
// entry, its object (the return address of the entry hook's call, in the
// callee's prologue: near the callee's first accesses, where the entry's pc,
// the call site, is not). Function exits, long records and dropped records
// leave it alone (an exit's pc lies in the callee, far from the caller's next
// access). A compact record stores its pc's distance from the last pc plus a
// bias, an offset in [0, 1024): deltas -512 .. +511, checked with one
// unsigned compare.
inline constexpr int kCompactOffsetBits = 10;
inline constexpr uint64_t kCompactBias = 1ull << (kCompactOffsetBits - 1);
inline constexpr int64_t kCompactMinDelta = -static_cast<int64_t>(kCompactBias);
inline constexpr int64_t kCompactMaxDelta = static_cast<int64_t>(kCompactBias) - 1;
inline constexpr uint64_t kCompactFlag = 1ull << 62;
inline constexpr bool IsPlainAccess(uint8_t kind) {
  return kind == static_cast<uint8_t>(EventKind::kRead) || kind == static_cast<uint8_t>(EventKind::kWrite);
}
// What a short record of `kind` leaves as the last pc: its pc, its object, or nothing.
enum class LastPcFrom { kNothing, kPc, kObject };
inline constexpr LastPcFrom LastPcSource(uint8_t kind) {
  if (IsPlainAccess(kind)) return LastPcFrom::kPc;
  if (kind == static_cast<uint8_t>(EventKind::kFuncEntry)) return LastPcFrom::kObject;
  return LastPcFrom::kNothing;
}
inline constexpr void UpdateLastPc(uint8_t kind, uint64_t object, uint64_t pc, uint64_t* last_pc) {
  const LastPcFrom from = LastPcSource(kind);
  if (from == LastPcFrom::kPc) *last_pc = pc;
  if (from == LastPcFrom::kObject) *last_pc = object;  // a user-space pc: its 48 stored bits are all of it
}
// The offset a compact record would store; CompactFits says whether it can.
inline constexpr uint64_t CompactOffset(uint64_t pc, uint64_t last_pc) { return pc + kCompactBias - last_pc; }
inline constexpr bool CompactFits(uint64_t offset) { return offset < (1ull << kCompactOffsetBits); }
// Bits 63..48 of a compact record without the offset, for an access `kind`
// (read or write) of `size` bytes; 0 when the access has no compact form.
inline constexpr uint64_t CompactTag(uint8_t kind, uint64_t size) {
  if (!IsPlainAccess(kind)) return 0;
  uint64_t log = 0;
  while (log <= 4 && (1ull << log) != size) ++log;
  if (log > 4) return 0;
  return (kCompactFlag >> 48) | static_cast<uint64_t>(kind) << 13 | log << kCompactOffsetBits;  // kWrite is 1: bit 61
}
// `tag` nonzero (CompactTag), `offset` fitting (CompactFits).
inline constexpr uint64_t CompactHead(uint64_t tag, uint64_t offset, uint64_t object) {
  return (tag | offset) << 48 | (object & kObjectMask);
}

// Repeated segments (docs/runtime.md, "Repeats marked at the source"). A
// segment is a thread's records between two of its ordered records. Two short
// records of kinds no event has, both with size 0, pc 0 and as object a length
// in words:
// - kSegmentRefKind, last before an ordered record: the records before it,
//   back to the ordered record before them (`object` words), are the thread's
//   reference segment from now on (replacing any earlier one).
// - kSegmentRepeatKind, alone between two ordered records: this segment is the
//   reference segment's words again (`object` of them), from the same pc-rule
//   last pc, so they decode to the same events.
// The runtime writes them only when the recorder asks (kOptionRepeatMarks).
inline constexpr uint8_t kSegmentRefKind = 62;
inline constexpr uint8_t kSegmentRepeatKind = 63;
static_assert(kNumEventKinds <= kSegmentRefKind, "segment marks use kinds no event has");
// The segments the runtime compares: shorter ones save less than a mark costs,
// longer ones would be published in parts (kPublishWords), and the recorder
// keeps the reference (8 KB at most per thread).
inline constexpr uint64_t kMinMarkedWords = 8;
inline constexpr uint64_t kMaxMarkedWords = 1024;

inline constexpr bool IsLong(uint64_t w0) { return (w0 & kLongFlag) != 0; }
inline constexpr bool IsCompact(uint64_t w0) { return (w0 >> 62) == 1; }
inline constexpr int LongRecordWords(uint64_t w0) {
  return kMinLongWords + static_cast<int>((w0 >> 62) & 1) + static_cast<int>((w0 >> 61) & 1);
}
inline constexpr int RecordWords(uint64_t w0) {
  return IsLong(w0) ? LongRecordWords(w0) : IsCompact(w0) ? kCompactWords : kShortWords;
}
// Short kinds keep six bits (bit 62 clear), long ones five (bits 62, 61 are flags).
inline uint8_t RecordKind(uint64_t w0) { return static_cast<uint8_t>((w0 >> 56) & (IsLong(w0) ? 0x1f : 0x3f)); }
inline uint64_t ShortSize(uint64_t w0) { return (w0 >> 48) & 0xff; }
inline uint64_t ShortObject(uint64_t w0) { return w0 & kObjectMask; }
inline uint8_t LongMode(uint64_t w0) { return static_cast<uint8_t>((w0 >> 48) & 0xff); }
// The fields of a long record starting at `w` (all of its words present).
inline uint64_t LongObject(const uint64_t* w) { return w[0] & kObjectMask; }
inline uint64_t LongPc(const uint64_t* w) { return w[1]; }
inline uint64_t LongOrder(const uint64_t* w) { return w[2]; }
inline uint64_t LongAux(const uint64_t* w) { return (w[0] & kLongAuxFlag) != 0 ? w[3] : 0; }
inline uint64_t LongAfter(const uint64_t* w) {
  return (w[0] & kLongAfterFlag) != 0 ? w[(w[0] & kLongAuxFlag) != 0 ? 4 : 3] : 0;
}
inline constexpr uint8_t CompactKind(uint64_t w0) { return static_cast<uint8_t>((w0 >> 61) & 1); }
// 0 for a log2 above 4: no writer makes one (damage).
inline constexpr uint64_t CompactSize(uint64_t w0) {
  const uint64_t log = (w0 >> 58) & 7;
  return log <= 4 ? 1ull << log : 0;
}
inline constexpr uint64_t CompactPc(uint64_t w0, uint64_t last_pc) {
  return last_pc + ((w0 >> 48) & ((1ull << kCompactOffsetBits) - 1)) - kCompactBias;
}

}  // namespace seer::rt
