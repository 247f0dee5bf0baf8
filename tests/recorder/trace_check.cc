// Whole-trace loading and order checks for the recorder tests.
#include "tests/recorder/trace_check.h"

#include <memory>
#include <set>

#include "tests/support/trace_io.h"

namespace seer::testing {

uint64_t LoadedTrace::Count(EventKind kind) const {
  uint64_t n = 0;
  for (const auto& e : events) n += e.kind == kind;
  return n;
}

uint64_t LoadedTrace::Count(EventKind kind, uint32_t tid) const {
  uint64_t n = 0;
  for (const auto& e : events) n += e.kind == kind && e.tid == tid;
  return n;
}

std::vector<uint32_t> LoadedTrace::ThreadsWith(EventKind kind, uint64_t n) const {
  std::vector<uint32_t> out;
  for (const auto& t : info.threads)
    if (Count(kind, t.tid) == n) out.push_back(t.tid);
  return out;
}

Status LoadTrace(const std::string& path, LoadedTrace* out) { return test::ReadTrace(path, &out->events, &out->info); }

std::string CheckOrder(const LoadedTrace& trace) {
  struct LockState {
    int64_t holder = -1;
    std::map<uint32_t, int> readers;
  };
  std::map<uint64_t, LockState> locks;
  std::set<uint32_t> begun, ended, forked;
  auto at = [](const Event& e, const std::string& what) {
    return "event " + std::to_string(e.index) + " (thread " + std::to_string(e.tid) + ", " +
           std::string(EventKindName(e.kind)) + "): " + what;
  };
  uint64_t expect_index = 0;
  for (const auto& e : trace.events) {
    if (e.index != expect_index++) return at(e, "index out of sequence");
    if (e.kind == EventKind::kThreadBegin) {
      if (!begun.insert(e.tid).second) return at(e, "thread begins twice");
      continue;
    }
    if (!begun.count(e.tid)) return at(e, "event before the thread's begin");
    if (ended.count(e.tid)) return at(e, "event after the thread's end");
    switch (e.kind) {
      case EventKind::kAcquire: {
        LockState& l = locks[e.object];
        if (l.holder >= 0) return at(e, "acquire while thread " + std::to_string(l.holder) + " holds the lock");
        if (e.mode == static_cast<uint8_t>(LockMode::kShared)) {
          ++l.readers[e.tid];
        } else {
          for (const auto& [r, n] : l.readers)
            if (n > 0) return at(e, "exclusive acquire while thread " + std::to_string(r) + " reads");
          l.holder = e.tid;
        }
        break;
      }
      case EventKind::kRelease: {
        LockState& l = locks[e.object];
        if (e.mode == static_cast<uint8_t>(LockMode::kShared)) {
          if (l.readers[e.tid]-- <= 0) return at(e, "shared release without a shared hold");
        } else {
          if (l.holder != static_cast<int64_t>(e.tid)) return at(e, "release by a thread that does not hold it");
          l.holder = -1;
        }
        break;
      }
      case EventKind::kCondWaitBegin: {
        LockState& l = locks[e.aux];
        if (l.holder != static_cast<int64_t>(e.tid)) return at(e, "cond wait without holding the mutex");
        l.holder = -1;
        break;
      }
      case EventKind::kCondWaitEnd: {
        LockState& l = locks[e.aux];
        if (l.holder >= 0) return at(e, "cond wait re-acquires a mutex another thread holds");
        l.holder = e.tid;
        break;
      }
      case EventKind::kFork:
        if (begun.count(static_cast<uint32_t>(e.object))) return at(e, "fork of a thread that already began");
        forked.insert(static_cast<uint32_t>(e.object));
        break;
      case EventKind::kJoin:
        if (!ended.count(static_cast<uint32_t>(e.object))) return at(e, "join before the joined thread ended");
        break;
      case EventKind::kThreadEnd: ended.insert(e.tid); break;
      default: break;
    }
  }
  return std::string();
}

std::string KindSummary(const LoadedTrace& trace) {
  std::string out;
  for (int k = 0; k < kNumEventKinds; ++k) {
    uint64_t n = trace.Count(static_cast<EventKind>(k));
    if (n == 0) continue;
    out += (out.empty() ? "" : " ") + std::string(EventKindName(static_cast<EventKind>(k))) + "=" + std::to_string(n);
  }
  return out;
}

}  // namespace seer::testing
