#include "predictor/shard.h"

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <utility>

#include "predictor/seqcheck/engines.h"

namespace seer::predictor {

Status ParseShard(const std::string& text, ShardSpec* out) {
  const Status bad =
      Status::InvalidArgument("--shard '" + text + "': expected I/N, shard I of N (0 <= I < N, N at most 65536)");
  const size_t slash = text.find('/');
  if (slash == std::string::npos || slash == 0 || slash + 1 == text.size()) return bad;
  const std::string i = text.substr(0, slash), n = text.substr(slash + 1);
  const auto digits = [](const std::string& s) {
    return s.size() <= 5 && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
  };
  if (!digits(i) || !digits(n)) return bad;
  out->index = static_cast<uint32_t>(std::stoul(i));
  out->count = static_cast<uint32_t>(std::stoul(n));
  if (out->count == 0 || out->count > 65536 || out->index >= out->count) return bad;
  return Status::Ok();
}

uint32_t ShardOfAnalysis(uint64_t j, uint32_t count) { return static_cast<uint32_t>(j % count); }

uint32_t ShardOfWindow(uint64_t whole, uint64_t w, uint64_t k, uint32_t count) {
  return static_cast<uint32_t>((whole + w + k) % count);
}

Status IdentifyTrace(const std::string& path, const TraceInfo& info, TraceIdentity* out) {
  struct stat st;
  if (stat(path.c_str(), &st) != 0) return Status::IOError(path + ": " + std::strerror(errno));
  out->path = info.path;
  out->size = static_cast<uint64_t>(st.st_size);
  out->mtime_ns = static_cast<int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec;
  out->events = info.counters.events;
  out->chunks = info.chunks;
  out->start_time = info.Meta(meta::kStartTime);
  out->host = info.Meta(meta::kHost);
  out->complete = info.complete;
  return Status::Ok();
}

uint64_t EventDigest(uint64_t digest, const Event* events, size_t n) {
  // Not cryptographic: it tells a trace from one written again, or a copy
  // from another file, at about a nanosecond an event (each shard pays it).
  const auto rotl = [](uint64_t v, int r) { return v << r | v >> (64 - r); };
  for (size_t i = 0; i < n; ++i) {
    const Event& e = events[i];
    const uint64_t word = e.index ^ rotl(e.object, 13) ^ rotl(e.aux, 29) ^ rotl(e.pc, 43) ^
                          (uint64_t{e.tid} << 16 | uint64_t{static_cast<uint8_t>(e.kind)} << 8 | e.mode) << 24;
    digest = rotl(digest ^ word, 23) * 0x9e3779b97f4a7c15ull;
  }
  return digest;
}

namespace {

// The digest of every event of the trace at `path` (a copy the merge is given).
Status DigestTrace(const std::string& path, uint64_t* digest) {
  std::unique_ptr<TraceReader> reader;
  Status s = TraceReader::Open(path, &reader);
  if (!s.ok()) return s;
  std::vector<Event> batch;
  *digest = 0;
  while (true) {
    s = reader->Next(&batch);
    if (!s.ok()) return s;
    if (batch.empty()) return Status::Ok();
    *digest = EventDigest(*digest, batch.data(), batch.size());
  }
}

// A shard's windows: those of its items. The budget of window k in one run is
// what the windows before it left: the whole budget less the checks they used,
// which is at least what this shard's own earlier windows used (one run uses
// min(whole, the checks each window needs, summed)). So each window here is
// decided on the whole budget less its own earlier windows' checks: never
// less than one run's budget (the merge's rule needs that), and once its own
// windows used the whole budget, the windows after them are not decided at all
// (one run decides none there either).
class ShardHook final : public WindowHook {
 public:
  // `spread`: per windowed part, whether its windows go round robin
  // (ShardOfWindow); the others are this shard's alone (it has their part).
  ShardHook(ShardSpec shard, uint64_t whole, std::vector<bool> spread, std::vector<WindowedPart>* parts)
      : shard_(shard), whole_(whole), spread_(std::move(spread)), parts_(parts), used_(parts->size(), 0) {}

  bool Decides(const std::string& engine, uint64_t k, uint64_t budget_whole, uint64_t* budget) override {
    std::lock_guard<std::mutex> lock(mu_);
    const size_t w = Find(engine);
    (*parts_)[w].max_checks = budget_whole;
    *budget = budget_whole - std::min(budget_whole, used_[w]);
    if (!spread_[w]) return true;
    // Its w in ShardOfWindow: the spread parts before it (the same in every shard).
    const auto spread_before = std::count(spread_.begin(), spread_.begin() + static_cast<std::ptrdiff_t>(w), true);
    return ShardOfWindow(whole_, static_cast<uint64_t>(spread_before), k, shard_.count) == shard_.index;
  }
  void Decided(const std::string& engine, uint64_t k, uint64_t budget, Findings found,
               const seqcheck::SeqCheckStats& stats) override {
    std::lock_guard<std::mutex> lock(mu_);
    const size_t w = Find(engine);
    used_[w] += stats.checks;
    (*parts_)[w].decided.push_back({k, budget, std::move(found), stats});
  }
  void Windows(const std::string& engine, uint64_t count) override {
    std::lock_guard<std::mutex> lock(mu_);
    (*parts_)[Find(engine)].windows = count;
  }

 private:
  size_t Find(const std::string& engine) const {
    for (size_t i = 0; i < parts_->size(); ++i)
      if ((*parts_)[i].analysis == engine) return i;
    return 0;  // not reached: every windowed engine selected has a part
  }

  const ShardSpec shard_;
  const uint64_t whole_;
  const std::vector<bool> spread_;
  std::mutex mu_;  // windowed engines run on lanes of their own with --jobs
  std::vector<WindowedPart>* const parts_;
  std::vector<uint64_t> used_;  // checks this shard's windows used so far, per engine
};

// The merge's: one window, on the checks the windows before it left.
class RedecideHook final : public WindowHook {
 public:
  RedecideHook(uint64_t window, uint64_t budget) : window_(window), budget_(budget) {}

  bool Decides(const std::string&, uint64_t k, uint64_t, uint64_t* budget) override {
    *budget = budget_;
    return k == window_;
  }
  void Decided(const std::string&, uint64_t, uint64_t, Findings found, const seqcheck::SeqCheckStats& stats) override {
    found_ = std::move(found);
    stats_ = stats;
    done_ = true;
  }
  void Windows(const std::string&, uint64_t) override {}

  bool done_ = false;
  Findings found_;
  seqcheck::SeqCheckStats stats_;

 private:
  const uint64_t window_;
  const uint64_t budget_;
};

bool SameFindingOptions(const AnalysisOptions& a, const AnalysisOptions& b) {
  return a.atomicity_window == b.atomicity_window && a.confirm_races == b.confirm_races &&
         a.confirm_races_max_events == b.confirm_races_max_events && a.w3_history == b.w3_history &&
         a.w3_edges == b.w3_edges && a.w3_position_cache_bytes == b.w3_position_cache_bytes &&
         a.wcp_queue_bytes == b.wcp_queue_bytes && a.rapid_compatible == b.rapid_compatible &&
         a.deadlock_max_cycle == b.deadlock_max_cycle && a.deadlock_max_checks == b.deadlock_max_checks &&
         a.seqcheck_window == b.seqcheck_window;
}

bool SameTrace(const TraceIdentity& a, const TraceIdentity& b, bool mtime) {
  return a.path == b.path && a.size == b.size && (!mtime || a.mtime_ns == b.mtime_ns) && a.events == b.events &&
         a.chunks == b.chunks && a.start_time == b.start_time && a.host == b.host && a.complete == b.complete &&
         a.digest == b.digest;
}

std::string Describe(const TraceIdentity& t) {
  char digest[17];
  std::snprintf(digest, sizeof(digest), "%016llx", static_cast<unsigned long long>(t.digest));
  return t.path + " (" + std::to_string(t.size) + " bytes, " + std::to_string(t.events) + " events, modified at " +
         std::to_string(t.mtime_ns) + " ns, digest " + digest + ")";
}

// Checks what every part must share with the first, and that shards 0..N-1 are there once each.
Status CheckParts(const std::vector<PartialResult>& parts, const std::vector<std::string>& names) {
  if (parts.empty()) return Status::InvalidArgument("no part to merge");
  const PartialResult& first = parts[0];
  const uint32_t n = first.shard.count;
  std::vector<int> seen(n, -1);
  for (size_t i = 0; i < parts.size(); ++i) {
    const PartialResult& p = parts[i];
    const std::string against = names[i] + " and " + names[0];
    if (!SameTrace(p.trace, first.trace, true))
      return Status::InvalidArgument(against + " are parts of different traces: " + Describe(p.trace) + " and " +
                                     Describe(first.trace));
    if (p.analyses != first.analyses || p.analysis_list != first.analysis_list)
      return Status::InvalidArgument(against + " ran different analyses");
    if (!SameFindingOptions(p.options, first.options))
      return Status::InvalidArgument(against + " ran the analyses with different options");
    if (p.shard.count != n)
      return Status::InvalidArgument(against + " cut the analysis into different numbers of shards (" +
                                     std::to_string(p.shard.count) + " and " + std::to_string(n) + ")");
    if (p.events != first.events)
      return Status::InvalidArgument(against + " read different numbers of events from the trace");
    if (seen[p.shard.index] >= 0)
      return Status::InvalidArgument(names[i] + " and " + names[seen[p.shard.index]] + " are both shard " +
                                     std::to_string(p.shard.index) + "/" + std::to_string(n));
    seen[p.shard.index] = static_cast<int>(i);
  }
  std::string missing;
  for (uint32_t i = 0; i < n; ++i)
    if (seen[i] < 0) missing += (missing.empty() ? "" : ", ") + std::to_string(i) + "/" + std::to_string(n);
  if (!missing.empty()) return Status::InvalidArgument("missing shards: " + missing);
  return Status::Ok();
}

// The findings of the windowed engine `name`: its windows joined in window
// order, as one run joins them, each window's budget the checks left then.
Status JoinWindows(const std::string& name, const std::vector<PartialResult>& parts, const std::string& trace_path,
                   Findings* out, uint64_t* decided_again) {
  std::map<uint64_t, const WindowResult*> results;
  uint64_t windows = 0, max_checks = 0;
  bool first = true;
  for (const PartialResult& p : parts) {
    for (const WindowedPart& wp : p.windowed) {
      if (wp.analysis != name) continue;
      if (!first && (wp.windows != windows || wp.max_checks != max_checks))
        return Status::InvalidArgument(name + ": the parts count different windows or budgets");
      first = false;
      windows = wp.windows;
      max_checks = wp.max_checks;
      for (const WindowResult& r : wp.decided)
        if (!results.emplace(r.window, &r).second)
          return Status::InvalidArgument(name + ": window " + std::to_string(r.window) + " decided twice");
    }
  }
  if (first) return Status::InvalidArgument(name + ": no part has its windows");
  const EngineSpec* spec = FindEngine(name);
  std::unique_ptr<seqcheck::WindowJoiner> joiner = seqcheck::NewWindowJoiner(name);
  seqcheck::SeqCheckStats sum;
  for (uint64_t k = 0; k < windows; ++k) {
    auto it = results.find(k);
    if (it == results.end()) return Status::InvalidArgument(name + ": no part decided window " + std::to_string(k));
    const WindowResult& r = *it->second;
    const uint64_t left = sum.checks < max_checks ? max_checks - sum.checks : 0;
    Findings found;
    seqcheck::SeqCheckStats stats;
    // A window decided on exactly what was left is one run's; so is one that
    // stopped on its own, short of its budget and of what was left (a run on
    // more checks that used fewer is exactly the run on fewer). Any other
    // stopped on its budget where one run would not have: decided again.
    const bool as_one_run = r.budget == left || (r.stats.checks < r.budget && r.stats.checks < left);
    if (!as_one_run) {
      if (left > 0) {
        RedecideHook hook(k, left);
        AnalysisOptions options = parts[0].options;
        options.jobs = 1;
        options.window_hook = &hook;
        AnalysisRun again;
        Status s = RunAnalyses(trace_path, {spec}, options, &again);
        if (!s.ok()) return s.WithContext(name + ": deciding window " + std::to_string(k) + " again");
        if (!hook.done_) return Status::Corruption(name + ": the trace has no window " + std::to_string(k));
        found = std::move(hook.found_);
        stats = hook.stats_;
        ++*decided_again;
      }
    } else {
      found = r.found;
      stats = r.stats;
    }
    seqcheck::AddSeqCheckStats(stats, &sum);
    joiner->Keep(&found);
  }
  joiner->AddFindings(sum, windows, out);
  return Status::Ok();
}

}  // namespace

Status RunShard(const std::string& path, const std::string& analysis_list, const std::vector<const EngineSpec*>& specs,
                const AnalysisOptions& options, ShardSpec shard, PartialResult* out, AnalysisProgress* progress) {
  if (options.confirm_races)
    return Status::InvalidArgument(
        "--confirm-races cannot be sharded (it decides every race engine's pairs over the whole trace at once)");
  *out = PartialResult();
  out->analysis_list = analysis_list;
  out->options = options;
  out->options.jobs = 1;
  out->options.window_hook = nullptr;
  out->shard = shard;
  std::vector<const EngineSpec*> run;
  uint64_t whole = 0;
  std::vector<bool> spread_parts;  // per windowed part: ShardHook's
  std::vector<const EngineSpec*> windowed;
  for (const EngineSpec* spec : specs) {
    out->analyses.push_back(spec->name);
    const bool is_windowed = seqcheck::IsWindowedEngine(spec->name);
    const bool spread = is_windowed && seqcheck::SpreadsWindowsOverShards(spec->name);
    // A spread analysis runs in every shard: each follows the whole trace to
    // cut the same windows (and know the locks held as each begins). The
    // others run in the shard they go to, and only there.
    if (!spread && ShardOfAnalysis(whole++, shard.count) != shard.index) continue;
    if (is_windowed) {
      out->windowed.push_back({spec->name, 0, 0, {}});
      spread_parts.push_back(spread);
      windowed.push_back(spec);
    } else {
      run.push_back(spec);
      out->engines.push_back({spec->name, Findings()});
    }
  }
  run.insert(run.end(), windowed.begin(), windowed.end());

  ShardHook hook(shard, whole, std::move(spread_parts), &out->windowed);
  AnalysisOptions with_hook = options;
  with_hook.window_hook = &hook;
  AnalysisRun analysis;
  analysis.keep_by_engine = true;
  uint64_t digest = 0;
  Status s = RunAnalyses(path, run, with_hook, &analysis, progress, [&](const std::vector<Event>& batch) {
    digest = EventDigest(digest, batch.data(), batch.size());
  });
  if (!s.ok()) return s;
  for (size_t i = 0; i < out->engines.size(); ++i) out->engines[i].findings = std::move(analysis.by_engine[i]);
  out->events = analysis.events;
  s = IdentifyTrace(path, analysis.reader->info(), &out->trace);
  out->trace.digest = digest;
  return s;
}

Status MergeParts(const std::vector<PartialResult>& parts, const std::vector<std::string>& names,
                  const std::string& trace_path, AnalysisRun* run, uint64_t* decided_again) {
  uint64_t again = 0;
  if (decided_again == nullptr) decided_again = &again;
  Status s = CheckParts(parts, names);
  if (!s.ok()) return s;
  const PartialResult& first = parts[0];
  const std::string path = trace_path.empty() ? first.trace.path : trace_path;
  s = TraceReader::Open(path, &run->reader);
  if (!s.ok()) return s.WithContext("the trace the parts were made of");
  TraceIdentity now;
  s = IdentifyTrace(path, run->reader->info(), &now);
  if (!s.ok()) return s;
  // The trace at the parts' path has its size, counts and time (a trace
  // written again has another time); a copy (--trace) has another path and
  // time of its own, and is decoded to compare its events.
  TraceIdentity expected = first.trace;
  expected.path = now.path;
  now.digest = expected.digest;
  if (!trace_path.empty() && SameTrace(now, expected, false)) {
    s = DigestTrace(path, &now.digest);
    if (!s.ok()) return s;
  }
  if (!SameTrace(now, expected, trace_path.empty()))
    return Status::InvalidArgument(path + " is not the trace the parts were made of: it is " + Describe(now) +
                                   ", they were made of " + Describe(first.trace));

  run->findings = Findings();
  run->events = first.events;
  for (const std::string& name : first.analyses) {
    Findings f;
    if (seqcheck::IsWindowedEngine(name)) {
      s = JoinWindows(name, parts, path, &f, decided_again);
      if (!s.ok()) return s;
    } else {
      const EnginePart* found = nullptr;
      for (const PartialResult& p : parts)
        for (const EnginePart& e : p.engines)
          if (e.analysis == name) {
            if (found != nullptr) return Status::InvalidArgument(name + ": more than one part ran it");
            found = &e;
          }
      if (found == nullptr) return Status::InvalidArgument(name + ": no part ran it");
      f = found->findings;
    }
    run->findings.Append(std::move(f));
  }
  return Status::Ok();
}

}  // namespace seer::predictor
