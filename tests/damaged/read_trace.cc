#include "tests/damaged/read_trace.h"

#include <memory>
#include <random>
#include <set>
#include <utility>
#include <vector>

#include "seer/trace.h"

namespace seer::test {
namespace {

// FNV-1a, fed field by field.
class Hasher {
 public:
  void Add(const void* p, size_t n) {
    auto* b = static_cast<const uint8_t*>(p);
    for (size_t i = 0; i < n; ++i) h_ = (h_ ^ b[i]) * 0x100000001b3ull;
  }
  void Add(uint64_t v) { Add(&v, sizeof(v)); }
  void Add(const std::string& s) {
    Add(s.size());
    Add(s.data(), s.size());
  }
  uint64_t value() const { return h_; }

 private:
  uint64_t h_ = 0xcbf29ce484222325ull;
};

}  // namespace

Status ReadWholeTrace(const std::string& path, TraceDigest* digest) {
  std::unique_ptr<TraceReader> reader;
  Status s = TraceReader::Open(path, &reader);
  if (!s.ok()) return s;
  const TraceInfo& info = reader->info();
  Hasher h;
  h.Add(info.format_version);
  for (const auto& [k, v] : info.meta) {
    h.Add(k);
    h.Add(v);
  }
  for (const ThreadInfo& t : info.threads) {
    h.Add(t.tid);
    h.Add(static_cast<uint64_t>(t.os_tid));
    h.Add(static_cast<uint64_t>(t.parent));
    h.Add(t.name);
  }
  for (const ModuleInfo& m : info.modules) {
    h.Add(m.path);
    h.Add(m.build_id);
    h.Add(m.base);
    h.Add(m.size);
    h.Add(m.file_offset);
  }
  const TraceCounters& c = info.counters;
  h.Add(c.events);
  for (uint64_t n : c.by_kind) h.Add(n);
  for (const auto& [where, counts] : c.lost) {
    h.Add(where);
    for (uint64_t n : counts) h.Add(n);
  }
  h.Add(c.distinct_threads);
  h.Add(c.distinct_locks);
  h.Add(c.distinct_variables);
  h.Add(c.distinct_locations);
  h.Add(info.chunks);
  h.Add(info.complete);

  std::set<std::pair<Namespace, uint64_t>> named;
  std::vector<Event> batch;
  uint64_t events = 0;
  for (;;) {
    s = reader->Next(&batch);
    if (!s.ok()) return s;
    if (batch.empty()) break;
    for (const Event& e : batch) {
      h.Add(e.index);
      h.Add(e.object);
      h.Add(e.aux);
      h.Add(e.pc);
      h.Add(e.tid);
      h.Add(static_cast<uint64_t>(e.kind) << 8 | e.mode);
      named.insert({Namespace::kThread, e.tid});
      if (e.kind == EventKind::kAcquire || e.kind == EventKind::kRelease) named.insert({Namespace::kLock, e.object});
      if (IsAccess(e.kind)) named.insert({Namespace::kVariable, e.object});
    }
    events += batch.size();
  }
  for (const auto& [ns, id] : named) h.Add(reader->Name(ns, id));
  digest->events = events;
  digest->hash = h.value();
  return Status::Ok();
}

Status WriteManyChunks(const std::string& path) {
  TraceWriterOptions options;
  options.events_per_chunk = 500;
  std::unique_ptr<TraceWriter> w;
  Status s = TraceWriter::Create(path, options, &w);
  if (!s.ok()) return s;
  w->SetMeta(meta::kSource, "test");
  std::mt19937_64 rng(7);
  for (uint32_t t = 0; t < 4; ++t) {
    w->AddThread({t, 1000 + t, t == 0 ? -1 : 0, "worker-" + std::to_string(t)});
    w->SetName(Namespace::kThread, t, "worker-" + std::to_string(t));
  }
  for (uint64_t l = 0; l < 3; ++l) w->SetName(Namespace::kLock, 0x1000 + l, "lock" + std::to_string(l));
  for (int i = 0; i < 40000; ++i) {
    Event e;
    e.tid = static_cast<uint32_t>(rng() % 4);
    const int r = static_cast<int>(rng() % 10);
    e.kind = r < 4 ? EventKind::kRead : r < 8 ? EventKind::kWrite : r == 8 ? EventKind::kAcquire : EventKind::kRelease;
    // Mostly each thread's own variables, a few shared ones: some races, not
    // thousands (the test runs `seer analyze` on copies of this trace).
    const uint64_t variable = rng() % 64 == 0 ? rng() % 8 : 8 + e.tid * 1024 + rng() % 1024;
    e.object = e.kind == EventKind::kAcquire || e.kind == EventKind::kRelease ? 0x1000 + rng() % 3
                                                                              : 0x7f0000000000ull + variable * 8;
    e.aux = IsAccess(e.kind) ? 8 : 0;
    e.pc = 0x401000 + (rng() % 300) * 4;
    s = w->Append(e);
    if (!s.ok()) return s;
  }
  return w->Close();
}

}  // namespace seer::test
