#include "interop/std_export.h"

#include <vector>

#include "interop/std_ops.h"
#include "interop/std_writer.h"
#include "store/flat_set.h"

namespace seer::interop {

Status ExportStd(TraceReader* reader, std::FILE* out, ExportStats* stats,
                 const std::function<void(uint64_t)>& progress) {
  using std_format::Decor;
  StdTextWriter w(out);
  // Recorded traces name variables by address, and imported ones may have kept
  // addresses (`at=`): keep them, so that import restores which accesses overlap.
  // Generated traces have one-byte variables and stay plain RAPID lines.
  const TraceInfo& info = reader->info();
  w.SetAddressed(info.Meta(meta::kPcKind) != "location" || info.Meta(meta::kSource) == "std-import");
  // The names a trace keeps are looked up once, at the first event that uses
  // each object; the writer needs them before that event.
  store::FlatSet64 seen_threads, seen_locks, seen_variables;
  auto name = [&](Namespace ns, uint64_t id, store::FlatSet64& seen) {
    if (!seen.Insert(id)) return;
    std::string n = reader->Name(ns, id);
    if (!n.empty()) w.SetName(ns, id, n);
  };
  for (const ThreadInfo& t : reader->info().threads) {
    if (!t.name.empty()) {
      w.AddThread(t);
      seen_threads.Insert(t.tid);
    }
  }
  std::vector<Event> batch;
  while (true) {
    Status s = reader->Next(&batch);
    if (!s.ok()) return s;
    if (batch.empty()) break;
    for (const Event& e : batch) {
      name(Namespace::kThread, e.tid, seen_threads);
      switch (std_format::DecorOf(e.kind)) {
        case Decor::kThread: name(Namespace::kThread, e.object, seen_threads); break;
        case Decor::kLock:
          name(Namespace::kLock, e.object, seen_locks);
          if (e.kind == EventKind::kCondWaitBegin || e.kind == EventKind::kCondWaitEnd)
            name(Namespace::kLock, e.aux, seen_locks);  // the mutex
          break;
        case Decor::kVariable: name(Namespace::kVariable, e.object, seen_variables); break;
        default: break;
      }
      s = w.Append(e);
      if (!s.ok()) return s;
    }
    if (progress) progress(w.events_written());
  }
  Status s = w.Close();
  if (!s.ok()) return s;
  if (stats) {
    stats->events = w.events_written();
    stats->lossy_events = w.lossy_events();
    stats->non_rapid_events = w.non_rapid_lines();
    stats->nonblocking_acquires = w.nonblocking_acquires();
  }
  return Status::Ok();
}

}  // namespace seer::interop
