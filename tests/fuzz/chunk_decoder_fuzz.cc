// libFuzzer target over the chunk decoder: whatever bytes a damaged trace holds
// in a chunk value, decoding must end in Ok or Corruption, never a crash, a hang
// or an out-of-bounds read (built with AddressSanitizer).
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include "store/chunk_codec.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  seer::store::ChunkDecoder decoder;
  seer::Status s = decoder.Load(std::string_view(reinterpret_cast<const char*>(data), size));
  if (!s.ok()) return 0;
  std::vector<seer::Event> events;
  while (s.ok() && decoder.remaining() > 0) s = decoder.Decode(1000, &events);
  return 0;
}
