// `seer info T.seer [--json]`: what a trace holds. It decodes every chunk, so it
// also verifies the whole file: the per-kind counts of the decoded events must
// match the counters the writer stored, or the trace is damaged. The distinct
// variables, locations and locks of a recording are counted here (the recorder
// leaves them: TraceWriterOptions::count_distinct).
#include <fmt/format.h>
#include <sys/stat.h>

#include <array>
#include <memory>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "cli/output.h"
#include "cli/progress.h"
#include "predictor/report/json_util.h"
#include "predictor/report/report.h"
#include "store/distinct_counter.h"

namespace seer::cli {
namespace {

using nlohmann::json;

struct InfoOptions {
  std::string input;
  bool json = false;
};

// What the full decode counts: kept to counting so that info runs at decode speed.
struct Decoded {
  std::array<uint64_t, kNumEventKinds> by_kind{};
  std::vector<uint64_t> per_thread;
  std::vector<std::array<uint64_t, kNumEventKinds>> per_thread_kind;  // by tid, then kind
  // The distinct variables, locations and locks, when the writer left them
  // uncounted (the recorder: meta::kDistinctNotCounted).
  std::unique_ptr<store::DistinctCounter> distinct;
};

Status DecodeAll(TraceReader* reader, Decoded* d) {
  Progress progress("events", reader->info().counters.events);
  if (!reader->info().Meta(meta::kDistinctNotCounted).empty()) d->distinct = std::make_unique<store::DistinctCounter>();
  std::vector<Event> batch;
  uint64_t done = 0;
  while (true) {
    Status s = reader->Next(&batch);
    if (!s.ok()) return s;
    if (batch.empty()) break;
    for (const Event& e : batch) {
      ++d->by_kind[static_cast<int>(e.kind)];
      if (e.tid >= d->per_thread.size()) {
        d->per_thread.resize(e.tid + 1);
        d->per_thread_kind.resize(e.tid + 1);
      }
      ++d->per_thread[e.tid];
      ++d->per_thread_kind[e.tid][static_cast<int>(e.kind)];
    }
    if (d->distinct)
      for (const Event& e : batch) d->distinct->Count(e);
    done += batch.size();
    progress.Update(done);
  }
  const TraceInfo& info = reader->info();
  for (int k = 0; k < kNumEventKinds; ++k) {
    if (d->by_kind[k] != info.counters.by_kind[k])
      return Status::Corruption(fmt::format("{}: the chunks hold {} {} events, the counters say {}", info.path,
                                            d->by_kind[k], EventKindName(static_cast<EventKind>(k)),
                                            info.counters.by_kind[k]));
  }
  uint64_t threads = 0;
  for (uint64_t n : d->per_thread) threads += n > 0;
  if (threads != info.counters.distinct_threads)
    return Status::Corruption(fmt::format("{}: the chunks hold events of {} threads, the counters say {}", info.path,
                                          threads, info.counters.distinct_threads));
  return Status::Ok();
}

struct ThreadRow {
  uint32_t tid;
  std::string name;
  int64_t os_tid = -1;
  int64_t parent = -1;
  uint64_t events = 0;
  std::array<uint64_t, kNumEventKinds> by_kind{};
};

// Threads of the table and threads that have events, by tid.
std::vector<ThreadRow> Threads(const TraceInfo& info, const predictor::ReportNames& names, const Decoded& d) {
  std::vector<ThreadRow> rows;
  size_t n = d.per_thread.size();
  for (const ThreadInfo& t : info.threads) n = std::max<size_t>(n, t.tid + 1);
  std::vector<const ThreadInfo*> table(n, nullptr);
  for (const ThreadInfo& t : info.threads) table[t.tid] = &t;
  for (uint32_t tid = 0; tid < n; ++tid) {
    const uint64_t events = tid < d.per_thread.size() ? d.per_thread[tid] : 0;
    if (!table[tid] && events == 0) continue;
    ThreadRow row{tid, names.Thread(tid)};
    if (table[tid]) {
      row.os_tid = table[tid]->os_tid;
      row.parent = table[tid]->parent;
    }
    row.events = events;
    if (tid < d.per_thread_kind.size()) row.by_kind = d.per_thread_kind[tid];
    rows.push_back(std::move(row));
  }
  return rows;
}

// How a recorded trace saw synchronisation (docs/recording.md, the modes):
// ebpf, inproc or preload; empty for traces that were not recorded. Traces of
// the in-process mode written before `record.sync` said only `sync`.
std::string SyncMode(const TraceInfo& info) {
  const std::string mode = info.Meta("record.sync");
  return mode.empty() ? info.Meta("sync") : mode;
}

constexpr const char* kIncomplete =
    "trace was not closed cleanly: the recorder or target died; events up to the last commit are intact";

std::string Text(const TraceInfo& info, const std::vector<ThreadRow>& threads, uint64_t file_size) {
  const TraceCounters& c = info.counters;
  std::string out;
  auto row = [&](const char* key, const std::string& value) { out += fmt::format("{:<14}{}\n", key, value); };
  row("trace:", info.path);
  row("format:", fmt::format("version {}", info.format_version));
  row("source:", info.Meta(meta::kSource).empty() ? "unknown" : info.Meta(meta::kSource));
  if (!info.Meta(meta::kCommandLine).empty()) row("command line:", info.Meta(meta::kCommandLine));
  if (!info.Meta("gen_options").empty()) row("generated:", info.Meta("gen_options"));
  if (const std::string mode = SyncMode(info); !mode.empty()) {
    const std::string uprobes = info.Meta("record.uprobes"), links = info.Meta("record.uprobe_links");
    std::string how = uprobes.empty() ? "" : uprobes + " uprobes";
    if (!links.empty()) how += links == "uprobe_multi" ? " on uprobe_multi links" : ", links " + links;
    row("sync mode:", how.empty() ? mode : fmt::format("{} ({})", mode, how));
  }
  if (!info.Meta("record.not_seen").empty()) row("not seen:", info.Meta("record.not_seen"));
  if (!info.Meta("record.process").empty())
    row("process:", info.Meta("record.pid") + ", " + info.Meta("record.process"));
  if (!info.Meta("record.processes").empty()) row("processes:", info.Meta("record.processes"));
  if (!info.Meta("record.unrecorded_processes").empty()) row("not recorded:", info.Meta("record.unrecorded_processes"));
  if (!info.Meta("record.tracefs").empty()) row("tracefs:", info.Meta("record.tracefs"));
  const std::string start = info.Meta(meta::kStartTime), end = info.Meta(meta::kEndTime);
  row("time:", start.empty() && end.empty()
                   ? "not recorded"
                   : fmt::format("{} .. {}", start.empty() ? "?" : start, end.empty() ? "?" : end));
  row("event times:", info.clock.empty()
                          ? std::string("none (no clock samples)")
                          : fmt::format("over {:.3f} s, {} clock samples (export --window takes times)",
                                        static_cast<double>(info.clock.back().ns) / 1e9, info.clock.size()));
  row("complete:", info.complete ? "yes" : std::string("no: ") + kIncomplete);
  row("events:", std::to_string(c.events));
  for (int k = 0; k < kNumEventKinds; ++k)
    if (c.by_kind[k]) out += fmt::format("  {:<16}{}\n", EventKindName(static_cast<EventKind>(k)), c.by_kind[k]);
  row("threads:", std::to_string(threads.size()));
  for (const ThreadRow& t : threads) {
    out += fmt::format("  {:<4} {:<16} {} events", t.tid, t.name, t.events);
    if (t.os_tid >= 0) out += fmt::format(", os tid {}", t.os_tid);
    if (t.parent >= 0) out += fmt::format(", parent {}", t.parent);
    out += "\n";
  }
  row("locks:", std::to_string(c.distinct_locks));
  row("variables:", std::to_string(c.distinct_variables));
  row("locations:", std::to_string(c.distinct_locations));
  row("lost events:", predictor::LostSummary(c));
  row("chunks:", std::to_string(info.chunks));
  row("file size:", fmt::format("{} bytes ({:.2f} bytes/event)", file_size,
                                c.events ? static_cast<double>(file_size) / static_cast<double>(c.events) : 0.0));
  return out;
}

std::string Json(const TraceInfo& info, const std::vector<ThreadRow>& threads, uint64_t file_size) {
  const TraceCounters& c = info.counters;
  json thread_list = json::array();
  for (const ThreadRow& t : threads)
    thread_list.push_back({{"tid", t.tid},
                           {"name", t.name},
                           {"os_tid", t.os_tid},
                           {"parent", t.parent},
                           {"events", t.events},
                           {"by_kind", predictor::KindCountsJson(t.by_kind, false)}});
  json j = {{"path", info.path},
            {"format_version", info.format_version},
            {"source", info.Meta(meta::kSource)},
            {"command_line", info.Meta(meta::kCommandLine)},
            {"sync_mode", SyncMode(info)},
            {"start_time", info.Meta(meta::kStartTime)},
            {"end_time", info.Meta(meta::kEndTime)},
            {"complete", info.complete},
            {"clock_samples", info.clock.size()},
            {"clock_span_ns", info.clock.empty() ? 0 : info.clock.back().ns},
            {"events", c.events},
            {"by_kind", predictor::KindCountsJson(c.by_kind, true)},
            {"threads", threads.size()},
            {"thread_list", thread_list},
            {"locks", c.distinct_locks},
            {"variables", c.distinct_variables},
            {"locations", c.distinct_locations},
            {"lost_events", c.TotalLost()},
            {"lost", predictor::LostJson(c)},
            {"chunks", info.chunks},
            {"file_size", file_size},
            {"bytes_per_event", c.events ? static_cast<double>(file_size) / static_cast<double>(c.events) : 0.0},
            {"meta", info.meta}};
  if (!info.complete) j["warning"] = kIncomplete;
  return j.dump(2) + "\n";
}

int RunInfo(const InfoOptions& o) {
  std::unique_ptr<TraceReader> reader;
  Status s = TraceReader::Open(o.input, &reader);
  if (!s.ok()) return Fail(s);
  Decoded decoded;
  s = DecodeAll(reader.get(), &decoded);
  if (!s.ok()) return Fail(s);
  struct stat st;
  const uint64_t file_size = stat(o.input.c_str(), &st) == 0 ? static_cast<uint64_t>(st.st_size) : 0;
  TraceInfo info = reader->info();
  if (decoded.distinct) {
    info.counters.distinct_variables = decoded.distinct->variables();
    info.counters.distinct_locations = decoded.distinct->locations();
    info.counters.distinct_locks = decoded.distinct->locks();
  }
  const predictor::ReportNames names(*reader);
  const std::vector<ThreadRow> threads = Threads(info, names, decoded);
  s = WriteOutput("", o.json ? Json(info, threads, file_size) : Text(info, threads, file_size));
  if (!s.ok()) return Fail(s);
  return kExitOk;
}

}  // namespace

void RegisterInfo(CLI::App& app, Runner& runner) {
  auto o = std::make_shared<InfoOptions>();
  CLI::App* cmd = app.add_subcommand("info", "Show what a trace holds (and verify every chunk of it)");
  cmd->add_option("trace", o->input, "trace file")->required();
  cmd->add_flag("--json", o->json, "print JSON");
  cmd->callback([o, &runner] { runner.run = [o] { return RunInfo(*o); }; });
}

}  // namespace seer::cli
