// seer_trace_counts: prints a trace's events per kind, per thread, its lost
// counters, metadata and the order check; for looking at recorded traces by hand.
#include <cstdio>

#include "tests/recorder/trace_check.h"

int main(int argc, char** argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: seer_trace_counts TRACE\n");
    return 2;
  }
  seer::testing::LoadedTrace t;
  seer::Status st = seer::testing::LoadTrace(argv[1], &t);
  if (!st.ok()) {
    fprintf(stderr, "%s\n", st.ToString().c_str());
    return 2;
  }
  printf("events %zu complete %d: %s\n", t.events.size(), t.info.complete, seer::testing::KindSummary(t).c_str());
  for (const auto& th : t.info.threads) {
    printf("thread %u os_tid %lld parent %lld name '%s':", th.tid, static_cast<long long>(th.os_tid),
           static_cast<long long>(th.parent), th.name.c_str());
    for (int k = 0; k < seer::kNumEventKinds; ++k) {
      uint64_t n = t.Count(static_cast<seer::EventKind>(k), th.tid);
      if (n)
        printf(" %s=%llu", std::string(seer::EventKindName(static_cast<seer::EventKind>(k))).c_str(),
               static_cast<unsigned long long>(n));
    }
    printf("\n");
  }
  for (const auto& [where, kinds] : t.info.counters.lost)
    for (int k = 0; k < seer::kNumEventKinds; ++k)
      if (kinds[k])
        printf("lost %s %s %llu\n", where.c_str(),
               std::string(seer::EventKindName(static_cast<seer::EventKind>(k))).c_str(),
               static_cast<unsigned long long>(kinds[k]));
  for (const auto& m : t.info.modules)
    printf("module %s base %llx build-id %s\n", m.path.c_str(), static_cast<unsigned long long>(m.base),
           m.build_id.c_str());
  for (const auto& [k, v] : t.info.meta) printf("meta %s = %s\n", k.c_str(), v.c_str());
  std::string order = seer::testing::CheckOrder(t);
  printf("order: %s\n", order.empty() ? "ok" : order.c_str());
  return 0;
}
