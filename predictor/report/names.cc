#include <fmt/format.h>

#include <string>
#include <unordered_map>

#include "predictor/report/report.h"

namespace seer::predictor {

ReportNames::ReportNames(const TraceReader& trace) : trace_(trace) {
  std::unordered_map<std::string, int> uses;
  for (const ThreadInfo& t : trace.info().threads) {
    if (t.tid >= threads_.size()) threads_.resize(t.tid + 1);
    threads_[t.tid] = t.name;
    ++uses[t.name];
  }
  // Threads inherit their creator's name (the program's, for a recorded
  // process) unless the program renames them: a name two threads share
  // says which thread only with the seer thread id next to it.
  for (size_t tid = 0; tid < threads_.size(); ++tid)
    if (!threads_[tid].empty() && uses[threads_[tid]] > 1) threads_[tid] += " (T" + std::to_string(tid) + ")";
}

std::string ReportNames::Thread(uint32_t tid) const {
  if (tid == kThreadNotSeen) return "not seen";
  if (tid < threads_.size() && !threads_[tid].empty()) return threads_[tid];
  std::string name = trace_.Name(Namespace::kThread, tid);
  return name.empty() ? "T" + std::to_string(tid) : name;
}

std::string ReportNames::ObjectName(EventKind kind, uint64_t object) const {
  if (IsMemoryEvent(kind)) return trace_.Name(Namespace::kVariable, object);
  if (IsThreadEvent(kind)) return Thread(static_cast<uint32_t>(object));
  if (kind == EventKind::kAcquire || kind == EventKind::kRelease || kind == EventKind::kCondWaitBegin ||
      kind == EventKind::kCondWaitEnd || kind == EventKind::kSignal || kind == EventKind::kWait ||
      kind == EventKind::kBarrierArrive || kind == EventKind::kBarrierDepart)
    return trace_.Name(Namespace::kLock, object);
  return std::string();
}

std::string ReportNames::Object(EventKind kind, uint64_t object) const {
  std::string name = ObjectName(kind, object);
  if (!name.empty()) return name;
  // Imported and generated traces number their objects (and STD export names
  // them V<id>, L<id>); recorded ones use addresses.
  const bool numbered = trace_.info().Meta(meta::kPcKind) == "location";
  if (IsThreadEvent(kind)) return "T" + std::to_string(object);
  if (!numbered) return fmt::format("{:#x}", object);
  return (IsMemoryEvent(kind) ? "V" : "L") + std::to_string(object);
}

std::string ReportNames::Site(uint64_t pc) const {
  if (trace_.info().Meta(meta::kPcKind) == "location") return "location " + std::to_string(pc);
  return fmt::format("pc {:#x}", pc);
}

std::string LostSummary(const TraceCounters& counters) {
  const uint64_t total = counters.TotalLost();
  if (total == 0) return "0";
  std::string out = std::to_string(total) + " (";
  bool first_place = true;
  for (const auto& [where, counts] : counters.lost) {
    out += (first_place ? "" : "; ") + where + ":";
    first_place = false;
    bool first = true;
    for (int k = 0; k < kNumEventKinds; ++k) {
      if (!counts[k]) continue;
      out += fmt::format("{} {} {}", first ? "" : ",", counts[k], EventKindName(static_cast<EventKind>(k)));
      first = false;
    }
  }
  return out + ")";
}

uint64_t CountFindings(const Findings& findings) {
  uint64_t n = findings.deadlocks.size() + findings.lock_order.size() + findings.atomicity.size();
  for (const RaceResult& r : findings.races) n += r.pairs.size();
  return n;
}

}  // namespace seer::predictor
