// The records a thread appends to its ring, as 8-byte words. Plain accesses and
// function entry/exit take two words and carry no timestamp; everything that
// orders threads (sync events, atomics, alloc/free) takes five and carries a
// number from the global sequence. Shared by the runtime and the drainer.
#pragma once

#include <cstdint>

namespace seer::rt {

// Short record: w0 = kind << 56 | size << 48 | object (48 bits), w1 = pc.
// Long record:  w0 = 1 << 63 | kind << 56 | mode << 48, w1 = object, w2 = aux,
//               w3 = pc, w4 = sequence number (kNoSeq for ranges too big for a short record).
inline constexpr int kShortWords = 2;
inline constexpr int kLongWords = 5;
inline constexpr uint64_t kLongFlag = 1ull << 63;
inline constexpr uint64_t kObjectMask = (1ull << 48) - 1;
inline constexpr uint64_t kMaxShortSize = 255;
inline constexpr uint64_t kNoSeq = ~0ull;

inline constexpr uint64_t ShortHead(uint8_t kind, uint64_t size, uint64_t object) {
  return static_cast<uint64_t>(kind) << 56 | size << 48 | (object & kObjectMask);
}
inline constexpr uint64_t LongHead(uint8_t kind, uint8_t mode) {
  return kLongFlag | static_cast<uint64_t>(kind) << 56 | static_cast<uint64_t>(mode) << 48;
}

inline bool IsLong(uint64_t w0) { return (w0 & kLongFlag) != 0; }
inline uint8_t RecordKind(uint64_t w0) { return static_cast<uint8_t>((w0 >> 56) & 0x7f); }
inline uint64_t ShortSize(uint64_t w0) { return (w0 >> 48) & 0xff; }
inline uint64_t ShortObject(uint64_t w0) { return w0 & kObjectMask; }
inline uint8_t LongMode(uint64_t w0) { return static_cast<uint8_t>((w0 >> 48) & 0xff); }

}  // namespace seer::rt
