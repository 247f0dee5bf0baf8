// Writes a random well-formed STD trace for comparing engines with RAPID:
//   seer_gen_std SEED EVENTS THREADS LOCKS VARIABLES > trace.std
// T0 forks the other threads first and joins them last; critical sections nest
// up to two deep and respect lock semantics; each thread has 40 program
// locations, so locations repeat as in real programs. Same arguments, same trace.
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

int main(int argc, char** argv) {
  if (argc != 6) {
    std::fprintf(stderr, "usage: %s SEED EVENTS THREADS LOCKS VARIABLES\n", argv[0]);
    return 2;
  }
  const unsigned long seed = std::strtoul(argv[1], nullptr, 10);
  const long events = std::strtol(argv[2], nullptr, 10);
  const int threads = std::atoi(argv[3]), locks = std::atoi(argv[4]), vars = std::atoi(argv[5]);
  if (events <= 0 || threads < 1 || locks < 1 || vars < 1) {
    std::fprintf(stderr, "arguments must be positive\n");
    return 2;
  }
  std::mt19937_64 rng(seed);
  std::vector<int> holder(locks, -1);
  std::vector<std::vector<int>> held(threads);
  auto loc = [&](int t) { return 1000 * (t + 1) + static_cast<int>(rng() % 40); };
  for (int t = 1; t < threads; ++t) std::printf("T0|fork(T%d)|%d\n", t, 1);
  for (long i = 0; i < events; ++i) {
    const int t = static_cast<int>(rng() % threads);
    const unsigned r = rng() % 100;
    if (r < 12 && held[t].size() < 2) {
      const int l = static_cast<int>(rng() % locks);
      if (holder[l] != -1) continue;
      holder[l] = t;
      held[t].push_back(l);
      std::printf("T%d|acq(L%d)|%d\n", t, l, loc(t));
    } else if (r < 24 && !held[t].empty()) {
      const int l = held[t].back();
      held[t].pop_back();
      holder[l] = -1;
      std::printf("T%d|rel(L%d)|%d\n", t, l, loc(t));
    } else {
      const int v = static_cast<int>(rng() % vars);
      std::printf("T%d|%s(V%d)|%d\n", t, r < 62 ? "r" : "w", v, loc(t));
    }
  }
  for (int t = 0; t < threads; ++t)
    while (!held[t].empty()) {
      std::printf("T%d|rel(L%d)|%d\n", t, held[t].back(), loc(t));
      held[t].pop_back();
    }
  for (int t = 1; t < threads; ++t) std::printf("T0|join(T%d)|%d\n", t, 2);
  return 0;
}
