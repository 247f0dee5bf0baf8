// TraceWriter over LMDB: events are buffered into a chunk; a full chunk is
// compressed and committed in one transaction together with every table that
// changed, so each commit leaves a complete, readable trace behind. With
// encode_threads, full chunks are encoded and compressed on those threads while
// the caller goes on appending, and committed in order by the caller.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "seer/trace.h"
#include "store/chunk_codec.h"
#include "store/coding.h"
#include "store/distinct_counter.h"
#include "store/lmdb_util.h"
#include "store/run_appender.h"
#include "store/tables.h"

namespace seer::store {
namespace {

// What a commit writes besides its chunk: the tables changed since the last
// commit. The counters go in whole, as of the commit's last event.
struct TableChanges {
  std::map<std::string, std::string> meta;
  std::vector<ThreadInfo> threads;
  std::vector<std::pair<uint32_t, ModuleInfo>> modules;
  std::vector<std::pair<std::string, std::string>> names;
  std::vector<ClockSample> clock;
  bool counters_dirty = false;
};

// A repeat (AppendRepeat) in a chunk, after `at` of the chunk's own events:
// the run is the chunk's runs[run]. An index, not a shared_ptr per repeat:
// the count of a shared_ptr lies on the cache line that the encoder threads
// and the merger read the run's events through, and an increment per repeat
// made that line bounce between cores (perf: 14% of the recorder's samples on
// one `lock add`, a loop body repeated 2.4M times).
struct RepeatSpan {
  uint32_t at;
  uint32_t run;
};

// The chunk's hold on the runs its repeats refer to, each held once as far as
// a short look back finds it (a chunk of one loop holds a few runs, repeated
// hundreds of times).
uint32_t HoldRun(std::vector<std::shared_ptr<const RepeatedRun>>* runs, const std::shared_ptr<const RepeatedRun>& run) {
  constexpr size_t kLookBack = 8;
  const size_t n = runs->size();
  for (size_t i = n; i > 0 && n - i < kLookBack; --i)
    if ((*runs)[i - 1].get() == run.get()) return static_cast<uint32_t>(i - 1);
  runs->push_back(run);
  return static_cast<uint32_t>(n);
}

// Encodes a chunk: its own events, and the repeats among them through the
// encoder's templates.
void EncodeEvents(ChunkEncoder* encoder, const std::vector<Event>& events, const std::vector<RepeatSpan>& repeats,
                  const std::vector<std::shared_ptr<const RepeatedRun>>& runs) {
  size_t done = 0;
  for (const RepeatSpan& r : repeats) {
    encoder->AddRun(events.data() + done, r.at - done);
    encoder->AddRepeat(runs[r.run]);
    done = r.at;
  }
  encoder->AddRun(events.data() + done, events.size() - done);
}

// A full chunk on its way to the encoder threads and back. Its tables are the
// changes made before its last event was appended, its counters those as of it:
// committed together they describe exactly the events committed so far.
struct ChunkJob {
  std::vector<Event> events;                             // appended as runs
  std::vector<RepeatSpan> repeats;                       // appended as repeats: kept, not copied
  std::vector<std::shared_ptr<const RepeatedRun>> runs;  // what `repeats` refer to
  size_t count = 0;                                      // events of both
  uint64_t first_index = 0;
  TableChanges tables;
  TraceCounters counters;
  std::string chunk;  // encoded and compressed, once done
  Status status;
  bool done = false;
};

class LmdbTraceWriter final : public TraceWriter, public RunAppender {
 public:
  LmdbTraceWriter(std::string path, const TraceWriterOptions& options) : path_(std::move(path)), options_(options) {
    if (!options_.count_distinct) SetMeta(meta::kDistinctNotCounted, "1");
  }

  ~LmdbTraceWriter() override {
    StopEncoders();
    if (env_) mdb_env_close(env_);
  }

  Status Open() {
    int rc = mdb_env_create(&env_);
    if (rc != MDB_SUCCESS) return lmdb::Check(rc, "mdb_env_create");
    mdb_env_set_maxdbs(env_, 8);
    map_size_ = options_.initial_map_size;
    mdb_env_set_mapsize(env_, map_size_);
    // One file, no lock file: a trace has exactly one writer, and readers open it
    // after (or while, read-only) it is written. NOSYNC: commits reach the page
    // cache, which is what survives the death of the recording process.
    rc = mdb_env_open(env_, path_.c_str(), MDB_NOSUBDIR | MDB_NOLOCK | MDB_NOSYNC, 0600);
    if (rc != MDB_SUCCESS) return lmdb::Check(rc, "cannot create trace");
    MDB_txn* txn = nullptr;
    rc = mdb_txn_begin(env_, nullptr, 0, &txn);
    if (rc != MDB_SUCCESS) return lmdb::Check(rc, "mdb_txn_begin");
    lmdb::TxnGuard guard(txn);
    for (auto [name, dbi] : {std::pair{db::kMeta, &meta_db_},
                             {db::kThreads, &threads_db_},
                             {db::kModules, &modules_db_},
                             {db::kNames, &names_db_},
                             {db::kCounters, &counters_db_},
                             {db::kChunks, &chunks_db_},
                             {db::kClock, &clock_db_}}) {
      rc = mdb_dbi_open(txn, name, MDB_CREATE, dbi);
      if (rc != MDB_SUCCESS) return lmdb::Check(rc, std::string("cannot create table ") + name);
    }
    rc = guard.Commit();
    if (rc != MDB_SUCCESS) return lmdb::Check(rc, "commit");
    pending_.meta[meta::kFormatVersion] = std::to_string(kTraceFormatVersion);
    pending_.meta[meta::kComplete] = "0";
    pending_.counters_dirty = true;
    return Flush();
  }

  void SetMeta(const std::string& key, const std::string& value) override { pending_.meta[key] = value; }

  void AddThread(const ThreadInfo& thread) override { pending_.threads.push_back(thread); }

  void AddModule(const ModuleInfo& module) override { pending_.modules.emplace_back(next_module_++, module); }

  void SetName(Namespace ns, uint64_t id, const std::string& name) override {
    pending_.names.emplace_back(NameKey(ns, id), name);
  }

  void AddLost(const std::string& where, EventKind kind, uint64_t count) override {
    counters_.lost[where][static_cast<int>(kind)] += count;
    pending_.counters_dirty = true;
  }

  void AddClockSample(uint64_t ns) override {
    const ClockSample sample{counters_.events, ns};
    if (sample.events == 0) return;  // says nothing: the trace's time starts at 0
    // No event since the last sample: its earlier time is the tighter bound.
    if (have_clock_ && sample.events == (latest_clock_pending_ ? latest_clock_ : last_kept_clock_).events) return;
    // Kept: the first sample, and one at least kMinClockSpacingNs after the last
    // kept; the newest of those between waits in latest_clock_ (written at Close).
    if (!have_clock_ || ns >= last_kept_clock_.ns + kMinClockSpacingNs) {
      pending_.clock.push_back(sample);
      last_kept_clock_ = sample;
      have_clock_ = true;
      latest_clock_pending_ = false;
    } else {
      latest_clock_ = sample;
      latest_clock_pending_ = true;
    }
  }

  Status Append(const Event& e) override { return AppendRun(&e, 1); }

  Status AppendRun(const Event* events, size_t n) override {
    if (closed_) return Status::Internal("append to a closed trace writer");
    if (!failed_.ok()) return failed_;
    // A run with an invalid event is refused whole: nothing of it is counted
    // or written.
    for (size_t i = 0; i < n; ++i)
      if (!Valid(events[i])) [[unlikely]]
        return Invalid(events[i]);
    if (options_.encode_threads > 0) {
      // Counted here, where the run is still in this core's cache, then copied
      // into the chunk in one piece per chunk.
      while (n > 0) {
        if (filling_ == nullptr) StartJob();
        const size_t take = std::min<size_t>(n, options_.events_per_chunk - filling_->count);
        for (size_t i = 0; i < take; ++i) Count(events[i]);
        pending_.counters_dirty = true;
        filling_->events.insert(filling_->events.end(), events, events + take);
        filling_->count += take;
        events += take;
        n -= take;
        if (filling_->count >= options_.events_per_chunk) {
          Status s = SubmitJob();
          if (!s.ok()) return s;
        }
      }
      return Status::Ok();
    }
    while (n > 0) {
      const size_t take = std::min<size_t>(n, options_.events_per_chunk - encoder_.count());
      if (encoder_.count() == 0) chunk_first_index_ = counters_.events;
      encoder_.AddRun(events, take);
      for (size_t i = 0; i < take; ++i) Count(events[i]);
      pending_.counters_dirty = true;
      events += take;
      n -= take;
      if (encoder_.count() >= options_.events_per_chunk) {
        Status s = Flush();
        if (!s.ok()) return s;
      }
    }
    return Status::Ok();
  }

  Status AppendRepeat(const std::shared_ptr<const RepeatedRun>& run) override {
    if (closed_) return Status::Internal("append to a closed trace writer");
    if (!failed_.ok()) return failed_;
    // A repeat cut by the end of a chunk is appended as any run: a template is
    // of whole runs. Valid and counted in full when it came first.
    const size_t n = run->events.size();
    if (options_.encode_threads > 0) {
      if (filling_ == nullptr) StartJob();
      if (n > options_.events_per_chunk - filling_->count) return AppendRun(run->events.data(), n);
      CountRepeat(*run);
      filling_->repeats.push_back({static_cast<uint32_t>(filling_->events.size()), HoldRun(&filling_->runs, run)});
      filling_->count += n;
      if (filling_->count >= options_.events_per_chunk) return SubmitJob();
      return Status::Ok();
    }
    if (n > options_.events_per_chunk - encoder_.count()) return AppendRun(run->events.data(), n);
    if (encoder_.count() == 0) chunk_first_index_ = counters_.events;
    encoder_.AddRepeat(run);
    CountRepeat(*run);
    if (encoder_.count() >= options_.events_per_chunk) return Flush();
    return Status::Ok();
  }

  Status Flush() override {
    if (!failed_.ok()) return failed_;
    if (options_.encode_threads > 0) {
      // The chunks on the encoder threads first, in order; then what is left
      // (a partial chunk, tables) on this thread, as without them.
      if (filling_ != nullptr) {
        chunk_first_index_ = filling_->first_index;
        EncodeEvents(&encoder_, filling_->events, filling_->repeats, filling_->runs);
        filling_->events.clear();
        filling_->repeats.clear();
        filling_->runs.clear();
        filling_->count = 0;
        spare_jobs_.push_back(std::move(filling_));
      }
      Status s = CommitJobs(/*all=*/true);
      if (!s.ok()) return s;
    }
    std::string chunk;
    if (encoder_.count() > 0) {
      Status st = encoder_.Finish(chunk_first_index_, options_.zstd_level, options_.entropy_coding, &chunk);
      if (!st.ok()) return Fail(st);
    }
    Status s = Commit(chunk, pending_, CountersNow());
    if (s.ok()) pending_ = TableChanges();
    return s;
  }

  Status Close() override {
    if (closed_) return Status::Ok();
    pending_.meta[meta::kComplete] = "1";
    if (latest_clock_pending_) pending_.clock.push_back(latest_clock_);
    Status st = Flush();
    StopEncoders();
    closed_ = true;
    if (!st.ok()) return st;
    if (options_.sync_on_close) {
      int rc = mdb_env_sync(env_, 1);
      if (rc != MDB_SUCCESS) return lmdb::Check(rc, path_ + ": sync");
    }
    mdb_env_close(env_);
    env_ = nullptr;
    return Status::Ok();
  }

  uint64_t events_written() const override { return counters_.events; }

 private:
  static bool Valid(const Event& e) { return e.tid < kMaxThreads && static_cast<int>(e.kind) < kNumEventKinds; }
  static Status Invalid(const Event& e) {
    if (e.tid >= kMaxThreads)
      return Status::InvalidArgument("thread id " + std::to_string(e.tid) + " exceeds the limit of " +
                                     std::to_string(kMaxThreads));
    return Status::InvalidArgument("unknown event kind");
  }

  // Per event; the caller marks the counters dirty once per run.
  [[gnu::always_inline]] void Count(const Event& e) {
    ++counters_.events;
    ++counters_.by_kind[static_cast<int>(e.kind)];
    if (e.tid >= seen_threads_.size()) [[unlikely]]
      seen_threads_.resize(e.tid + 1, 0);
    if (!seen_threads_[e.tid]) {
      seen_threads_[e.tid] = 1;
      ++counters_.distinct_threads;
    }
    if (options_.count_distinct) distinct_.Count(e);
  }

  // The counters as they are now, for a commit: the distinct counts are the
  // counter's (0 when not counted).
  const TraceCounters& CountersNow() {
    counters_.distinct_variables = distinct_.variables();
    counters_.distinct_locations = distinct_.locations();
    counters_.distinct_locks = distinct_.locks();
    return counters_;
  }

  // A repeat's counts (AppendRepeat): its events, by kind. Every thread,
  // variable, location and lock in it was counted when it came first.
  void CountRepeat(const RepeatedRun& run) {
    counters_.events += run.events.size();
    for (int k = 0; k < kNumEventKinds; ++k) counters_.by_kind[k] += run.by_kind[k];
    pending_.counters_dirty = true;
  }

  Status Fail(Status s) {
    if (failed_.ok()) failed_ = s;
    return s;
  }

  // Commits `chunk` (may be empty) with the table changes and counters; a full
  // map is the one error fixed here: the map grows and the commit is retried.
  Status Commit(const std::string& chunk, const TableChanges& tables, const TraceCounters& counters) {
    for (int attempt = 0; attempt < 64; ++attempt) {
      int rc = CommitOnce(chunk, tables, counters);
      if (rc == MDB_MAP_FULL) {
        map_size_ *= 2;
        rc = mdb_env_set_mapsize(env_, map_size_);
        if (rc != MDB_SUCCESS) return Fail(lmdb::Check(rc, path_ + ": cannot grow the map"));
        continue;
      }
      if (rc != MDB_SUCCESS)
        return Fail(lmdb::Check(rc, path_ + ": cannot commit chunk " + std::to_string(next_chunk_)));
      if (!chunk.empty()) ++next_chunk_;
      return Status::Ok();
    }
    return Fail(Status::IOError(path_ + ": cannot grow the map enough"));
  }

  // One transaction: the chunk (if any) and every table that changed.
  int CommitOnce(const std::string& chunk, const TableChanges& tables, const TraceCounters& counters) {
    MDB_txn* txn = nullptr;
    int rc = mdb_txn_begin(env_, nullptr, 0, &txn);
    if (rc != MDB_SUCCESS) return rc;
    lmdb::TxnGuard guard(txn);
    auto put = [&](MDB_dbi dbi, std::string_view k, std::string_view v) {
      MDB_val key = lmdb::Val(k), val = lmdb::Val(v);
      return mdb_put(txn, dbi, &key, &val, 0);
    };
    // Table records also go into the tables' checksum: a replaced record's
    // hash comes out of the sum, the new one's goes in.
    uint64_t sum = tables_checksum_;
    auto put_record = [&](MDB_dbi dbi, const char* table, std::string_view k, std::string_view v) {
      MDB_val key = lmdb::Val(k), old;
      int get_rc = mdb_get(txn, dbi, &key, &old);
      if (get_rc == MDB_SUCCESS)
        sum -= TableRecordHash(table, k, lmdb::View(old));
      else if (get_rc != MDB_NOTFOUND)
        return get_rc;
      sum += TableRecordHash(table, k, v);
      return put(dbi, k, v);
    };
    if (!chunk.empty() && (rc = put(chunks_db_, coding::BigEndianKey(next_chunk_), chunk))) return rc;
    for (const auto& [k, v] : tables.meta)
      if (k != meta::kTablesChecksum && (rc = put_record(meta_db_, db::kMeta, k, v))) return rc;
    for (const auto& t : tables.threads)
      if ((rc = put_record(threads_db_, db::kThreads, coding::BigEndianKey(t.tid, 4), EncodeThread(t)))) return rc;
    for (const auto& [i, m] : tables.modules)
      if ((rc = put_record(modules_db_, db::kModules, coding::BigEndianKey(i, 4), EncodeModule(m)))) return rc;
    for (const auto& [k, v] : tables.names)
      if ((rc = put_record(names_db_, db::kNames, k, v))) return rc;
    if (tables.counters_dirty && (rc = put_record(counters_db_, db::kCounters, "all", EncodeCounters(counters))))
      return rc;
    for (const ClockSample& c : tables.clock)
      if ((rc = put_record(clock_db_, db::kClock, coding::BigEndianKey(c.events), coding::BigEndianKey(c.ns))))
        return rc;
    if ((rc = put(meta_db_, meta::kTablesChecksum, FormatTablesChecksum(sum)))) return rc;
    rc = guard.Commit();
    if (rc == MDB_SUCCESS) tables_checksum_ = sum;
    return rc;
  }

  // --- Encoder threads (options_.encode_threads > 0) ---

  void StartJob() {
    if (encoders_.empty()) {
      // Started by the first appending thread, so that they share its
      // scheduling policy (the recorder's merger runs under SCHED_IDLE).
      for (int i = 0; i < options_.encode_threads; ++i) encoders_.emplace_back([this] { EncodeLoop(); });
    }
    if (!spare_jobs_.empty()) {
      filling_ = std::move(spare_jobs_.back());
      spare_jobs_.pop_back();
    } else {
      filling_ = std::make_unique<ChunkJob>();
      filling_->events.reserve(options_.events_per_chunk);
    }
    filling_->first_index = counters_.events;
  }

  // Hands the full chunk to the encoders with the tables changed so far, then
  // commits the chunks that are done, oldest first. At most a few chunks are
  // in flight: a caller faster than the encoders waits for them here.
  Status SubmitJob() {
    filling_->tables = std::move(pending_);
    filling_->counters = CountersNow();
    pending_ = TableChanges();
    {
      std::lock_guard<std::mutex> lock(mu_);
      jobs_.push_back(std::move(filling_));
      todo_.push_back(jobs_.back().get());
    }
    cv_.notify_all();
    return CommitJobs(/*all=*/false);
  }

  // Commits finished chunks in order. all: waits for every chunk in flight;
  // otherwise only while more than the encoders can hold are in flight.
  Status CommitJobs(bool all) {
    const size_t max_in_flight = static_cast<size_t>(options_.encode_threads) + 2;
    std::unique_lock<std::mutex> lock(mu_);
    while (!jobs_.empty()) {
      if (!jobs_.front()->done) {
        if (!all && jobs_.size() <= max_in_flight) break;
        cv_.wait(lock, [&] { return jobs_.front()->done; });
      }
      std::unique_ptr<ChunkJob> job = std::move(jobs_.front());
      jobs_.pop_front();
      lock.unlock();
      Status s = job->status.ok() ? Commit(job->chunk, job->tables, job->counters) : Fail(job->status);
      if (!s.ok()) return s;
      job->events.clear();
      job->repeats.clear();
      job->runs.clear();
      job->count = 0;
      job->tables = TableChanges();
      job->done = false;
      spare_jobs_.push_back(std::move(job));
      lock.lock();
    }
    return Status::Ok();
  }

  void EncodeLoop() {
    ChunkEncoder encoder;
    std::unique_lock<std::mutex> lock(mu_);
    for (;;) {
      cv_.wait(lock, [&] { return stop_ || !todo_.empty(); });
      if (todo_.empty()) return;  // stopping
      ChunkJob* job = todo_.front();
      todo_.pop_front();
      lock.unlock();
      EncodeEvents(&encoder, job->events, job->repeats, job->runs);
      job->status = encoder.Finish(job->first_index, options_.zstd_level, options_.entropy_coding, &job->chunk);
      lock.lock();
      job->done = true;
      cv_.notify_all();
    }
  }

  void StopEncoders() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      stop_ = true;
      todo_.clear();  // chunks not encoded yet are not committed: Close drained them first
    }
    cv_.notify_all();
    for (std::thread& t : encoders_) t.join();
    encoders_.clear();
  }

  const std::string path_;
  const TraceWriterOptions options_;
  MDB_env* env_ = nullptr;
  MDB_dbi meta_db_ = 0, threads_db_ = 0, modules_db_ = 0, names_db_ = 0, counters_db_ = 0, chunks_db_ = 0,
          clock_db_ = 0;
  uint64_t map_size_ = 0;
  bool closed_ = false;

  ChunkEncoder encoder_;
  uint64_t chunk_first_index_ = 0;
  uint64_t next_chunk_ = 0;
  uint32_t next_module_ = 0;
  uint64_t tables_checksum_ = 0;  // as of the last commit

  Status failed_;         // the first failed commit or encoding: the writer stops there
  TableChanges pending_;  // since the last commit (or the last chunk handed to the encoders)
  // A millisecond between samples bounds the table at 1000 records per second
  // of recording while keeping an event's time to within about a drain round.
  static constexpr uint64_t kMinClockSpacingNs = 1'000'000;
  ClockSample last_kept_clock_, latest_clock_;
  bool have_clock_ = false, latest_clock_pending_ = false;

  TraceCounters counters_;
  std::vector<uint8_t> seen_threads_;  // bytes, not bits: one load and compare per event
  DistinctCounter distinct_;

  // Encoder threads: jobs_ are the chunks handed over, in commit order; todo_
  // those no encoder has taken yet. Under mu_, with done and stop_.
  std::unique_ptr<ChunkJob> filling_;
  std::vector<std::unique_ptr<ChunkJob>> spare_jobs_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::unique_ptr<ChunkJob>> jobs_;
  std::deque<ChunkJob*> todo_;
  bool stop_ = false;
  std::vector<std::thread> encoders_;
};

}  // namespace
}  // namespace seer::store

// The contract of seer/trace.h, implemented by the store.
namespace seer {

Status TraceWriter::Create(const std::string& path, const TraceWriterOptions& options,
                           std::unique_ptr<TraceWriter>* out) {
  struct stat st;
  if (stat(path.c_str(), &st) == 0) {
    if (S_ISDIR(st.st_mode)) return Status::InvalidArgument(path + ": is a directory");
    if (unlink(path.c_str()) != 0)
      return Status::IOError(path + ": cannot replace existing file: " + std::strerror(errno));
  }
  // Create the file ourselves first so its mode is 0600 whatever the umask.
  int fd = open(path.c_str(), O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0600);
  if (fd < 0) {
    int err = errno;
    if (err == EACCES || err == EPERM) return Status::Permission(path + ": " + std::strerror(err));
    if (err == ENOENT) return Status::NotFound(path + ": directory does not exist");
    return Status::IOError(path + ": " + std::strerror(err));
  }
  close(fd);
  auto writer = std::make_unique<store::LmdbTraceWriter>(path, options);
  Status s = writer->Open();
  if (!s.ok()) return s.WithContext(path);
  *out = std::move(writer);
  return Status::Ok();
}

}  // namespace seer
