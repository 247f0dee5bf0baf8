// Prints racy events, racy locations and race pairs of each race engine for STD
// trace files, in the layout of RAPID's summary lines, for comparing by hand:
//   seer_std_counts trace.std [more.std ...]
// Exit code 2 on a file that cannot be read or parsed.
#include <cstdio>
#include <exception>

#include "tests/predictor/engines/engine_support.h"

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s trace.std ...\n", argv[0]);
    return 2;
  }
  for (int i = 1; i < argc; ++i) {
    try {
      const seer::test::TraceBuilder b = seer::test::LoadStd(argv[i]);
      for (const char* name : {"hb", "shb", "wcp", "lockset"}) {
        const seer::predictor::RaceResult r = seer::test::RunEngine(name, b);
        std::printf("%s %s racy_events=%llu racy_locations=%llu pairs=%zu\n", argv[i], name,
                    static_cast<unsigned long long>(r.racy_events), static_cast<unsigned long long>(r.racy_locations),
                    r.pairs.size());
      }
    } catch (const std::exception& e) {
      std::fprintf(stderr, "%s: %s\n", argv[i], e.what());
      return 2;
    }
  }
  return 0;
}
