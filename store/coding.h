// Varint (LEB128) and zigzag coding for the event encoding, after LevelDB's
// util/coding.h. Decoders never read past `limit` and report malformed input.
#pragma once

#include <cstdint>
#include <string>

namespace seer::store::coding {

// Writes `v` at `p`, which has room for 10 bytes; returns the byte after it.
// For encoders that write into a raw buffer; PutVarint64 appends the same bytes.
inline uint8_t* EncodeVarint64(uint8_t* p, uint64_t v) {
  while (v >= 0x80) {
    *p++ = static_cast<uint8_t>(v | 0x80);
    v >>= 7;
  }
  *p++ = static_cast<uint8_t>(v);
  return p;
}

inline void PutVarint64(std::string* dst, uint64_t v) {
  uint8_t buf[10];
  const uint8_t* end = EncodeVarint64(buf, v);
  dst->append(reinterpret_cast<const char*>(buf), static_cast<size_t>(end - buf));
}

// Returns the byte after the varint, or nullptr if it is truncated or longer
// than 10 bytes.
inline const uint8_t* GetVarint64(const uint8_t* p, const uint8_t* limit, uint64_t* v) {
  if (p < limit && *p < 0x80) {  // the common one-byte case
    *v = *p;
    return p + 1;
  }
  uint64_t result = 0;
  for (int shift = 0; shift <= 63 && p < limit; shift += 7) {
    uint64_t byte = *p++;
    result |= (byte & 0x7f) << shift;
    if (byte < 0x80) {
      *v = result;
      return p;
    }
  }
  return nullptr;
}

inline uint64_t ZigZag(int64_t v) { return (static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63); }
inline int64_t UnZigZag(uint64_t v) { return static_cast<int64_t>(v >> 1) ^ -static_cast<int64_t>(v & 1); }

inline void PutFixed32(std::string* dst, uint32_t v) {
  for (int i = 0; i < 4; ++i) dst->push_back(static_cast<char>(v >> (8 * i)));
}
inline void PutFixed64(std::string* dst, uint64_t v) {
  for (int i = 0; i < 8; ++i) dst->push_back(static_cast<char>(v >> (8 * i)));
}
inline uint32_t DecodeFixed32(const uint8_t* p) {
  uint32_t v = 0;
  for (int i = 0; i < 4; ++i) v |= static_cast<uint32_t>(p[i]) << (8 * i);
  return v;
}
inline uint64_t DecodeFixed64(const uint8_t* p) {
  uint64_t v = 0;
  for (int i = 0; i < 8; ++i) v |= static_cast<uint64_t>(p[i]) << (8 * i);
  return v;
}

// Big-endian keys sort in numeric order under LMDB's default memcmp comparison.
inline std::string BigEndianKey(uint64_t v, int bytes = 8) {
  std::string key(bytes, '\0');
  for (int i = bytes - 1; i >= 0; --i, v >>= 8) key[i] = static_cast<char>(v & 0xff);
  return key;
}
inline uint64_t DecodeBigEndian(const uint8_t* p, int bytes) {
  uint64_t v = 0;
  for (int i = 0; i < bytes; ++i) v = (v << 8) | p[i];
  return v;
}

}  // namespace seer::store::coding
