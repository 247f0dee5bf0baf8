// Writes a random well-formed STD trace (tests/support/workload_trace.h) for
// comparing engines with RAPID:
//   seer_gen_std SEED EVENTS THREADS LOCKS VARIABLES [reentrant] > trace.std
// Same arguments, same trace. Exit code 2 on bad arguments.
#include <cstdio>
#include <cstdlib>
#include <string>

#include "tests/predictor/engines/engine_support.h"
#include "tests/support/workload_trace.h"

int main(int argc, char** argv) {
  const bool reentrant = argc == 7 && std::string(argv[6]) == "reentrant";
  if (argc != 6 && !reentrant) {
    std::fprintf(stderr, "usage: %s SEED EVENTS THREADS LOCKS VARIABLES [reentrant]\n", argv[0]);
    return 2;
  }
  seer::test::WorkloadOptions o;
  const unsigned long long seed = std::strtoull(argv[1], nullptr, 10);
  const long long events = std::strtoll(argv[2], nullptr, 10);
  const int threads = std::atoi(argv[3]), locks = std::atoi(argv[4]), variables = std::atoi(argv[5]);
  if (events <= 0 || threads < 1 || locks < 1 || variables < 1) {
    std::fprintf(stderr, "%s: EVENTS, THREADS, LOCKS and VARIABLES must be positive\n", argv[0]);
    return 2;
  }
  o.events = static_cast<uint64_t>(events);
  o.threads = static_cast<uint32_t>(threads);
  o.locks = static_cast<uint32_t>(locks);
  o.variables = static_cast<uint32_t>(variables);
  o.reentrant = reentrant;
  const std::string text = seer::test::ToStd(seer::test::WorkloadTrace(o, seed));
  std::fwrite(text.data(), 1, text.size(), stdout);
  return 0;
}
