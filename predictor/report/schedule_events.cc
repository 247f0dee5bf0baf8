#include "predictor/report/schedule_events.h"

#include <algorithm>
#include <memory>

#include "seer/trace.h"

namespace seer::predictor {

std::vector<uint64_t> ScheduleTail(const Witness& witness) { return witness.schedule.Tail(kScheduleTail); }

Status ReadScheduleEvents(const std::string& path, const Findings& findings, std::map<uint64_t, Event>* out) {
  std::vector<uint64_t> wanted;
  auto add = [&](const Witness& w) {
    for (uint64_t i : ScheduleTail(w)) wanted.push_back(i);
  };
  for (const Deadlock& d : findings.deadlocks) add(d.witness);
  for (const AtomicityViolation& a : findings.atomicity) add(a.witness);
  for (const RaceResult& r : findings.races)
    for (const RacePair& p : r.pairs)
      if (p.confirmed.value_or(false)) add(p.confirmation);
  std::sort(wanted.begin(), wanted.end());
  wanted.erase(std::unique(wanted.begin(), wanted.end()), wanted.end());
  if (wanted.empty()) return Status::Ok();

  std::unique_ptr<TraceReader> reader;
  Status s = TraceReader::Open(path, &reader);
  if (!s.ok()) return s;
  std::vector<Event> batch;
  size_t next = 0;
  while (next < wanted.size()) {
    s = reader->Next(&batch);
    if (!s.ok()) return s;
    if (batch.empty()) break;
    if (batch.back().index < wanted[next]) continue;
    for (const Event& e : batch) {
      while (next < wanted.size() && wanted[next] < e.index) ++next;  // not in the trace: skipped
      if (next < wanted.size() && wanted[next] == e.index) {
        (*out)[e.index] = e;
        ++next;
      }
    }
  }
  return Status::Ok();
}

}  // namespace seer::predictor
