// Writes the seed corpus for the chunk decoder fuzzer: a few small valid chunks
// of different shapes. Run at build time, so the corpus always matches the codec.
#include <cstdio>
#include <string>

#include "store/chunk_codec.h"

namespace {

void WriteChunk(const std::string& dir, const char* name, int events, int threads, bool varied) {
  seer::store::ChunkEncoder enc;
  for (int i = 0; i < events; ++i) {
    seer::Event e;
    e.tid = static_cast<uint32_t>(i % threads);
    e.kind = static_cast<seer::EventKind>(varied ? i % seer::kNumEventKinds : (i % 3 ? 0 : 1));
    e.object = 0x7f0000000000ull + static_cast<uint64_t>((i * 37) % 512) * 8;
    e.aux = varied ? static_cast<uint64_t>(i % 9) : 8;
    e.pc = 0x401000 + static_cast<uint64_t>(i % 17) * 4;
    e.mode = varied ? static_cast<uint8_t>(i % 6) : 0;
    enc.Add(e);
  }
  std::string chunk;
  if (!enc.Finish(0, 3, false, &chunk).ok()) return;
  std::string path = dir + "/" + name;
  if (FILE* f = std::fopen(path.c_str(), "wb")) {
    std::fwrite(chunk.data(), 1, chunk.size(), f);
    std::fclose(f);
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: make_corpus DIR\n");
    return 2;
  }
  WriteChunk(argv[1], "one_thread", 40, 1, false);
  WriteChunk(argv[1], "three_threads", 120, 3, false);
  WriteChunk(argv[1], "every_kind", 200, 5, true);
  return 0;
}
