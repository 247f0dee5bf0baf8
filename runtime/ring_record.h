// The records a thread appends to its ring, as 8-byte words. Plain accesses and
// function entry/exit take two words and carry no timestamp; everything that
// orders threads (sync events, atomics, alloc/free) takes six and carries
// a number from one of the runtime's order domains. Shared by the runtime and
// the drainer; docs/runtime.md ("Ordering") explains the domains. Both sizes are
// even and records start at even words, so a short record never straddles the
// ring's end (one index computation on the hot path).
#pragma once

#include <cstdint>

namespace seer::rt {

// Short record: w0 = kind << 56 | size << 48 | object (48 bits), w1 = pc.
// Long record:  w0 = 1 << 63 | kind << 56 | mode << 48, w1 = object, w2 = aux,
//               w3 = pc, w4 = order word (kNoSeq for ranges too big for a short
//               record), w5 = "after": the event follows every global-domain
//               event numbered below it (0: no such constraint; see docs).
inline constexpr int kShortWords = 2;
inline constexpr int kLongWords = 6;
inline constexpr uint64_t kLongFlag = 1ull << 63;
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
//      taken under the stripe's spinlock, with the operation).
inline constexpr uint32_t kLockShards = 4096;
inline constexpr uint32_t kAtomicStripes = 1024;
inline constexpr uint32_t kGlobalDomain = 0;
inline constexpr uint32_t kFirstLockDomain = 1;
inline constexpr uint32_t kFirstAtomicDomain = kFirstLockDomain + kLockShards;
inline constexpr uint32_t kDomains = kFirstAtomicDomain + kAtomicStripes;
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
inline constexpr uint64_t LongHead(uint8_t kind, uint8_t mode) {
  return kLongFlag | static_cast<uint64_t>(kind) << 56 | static_cast<uint64_t>(mode) << 48;
}

inline bool IsLong(uint64_t w0) { return (w0 & kLongFlag) != 0; }
inline int RecordWords(uint64_t w0) { return IsLong(w0) ? kLongWords : kShortWords; }
inline uint8_t RecordKind(uint64_t w0) { return static_cast<uint8_t>((w0 >> 56) & 0x7f); }
inline uint64_t ShortSize(uint64_t w0) { return (w0 >> 48) & 0xff; }
inline uint64_t ShortObject(uint64_t w0) { return w0 & kObjectMask; }
inline uint8_t LongMode(uint64_t w0) { return static_cast<uint8_t>((w0 >> 48) & 0xff); }

}  // namespace seer::rt
