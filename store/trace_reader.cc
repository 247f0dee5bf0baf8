// TraceReader over LMDB. Opening checks, before LMDB maps the file, its whole
// structure (store/lmdb_check.h: LMDB trusts every page number and size in it),
// then that it carries seer's tables and a format version this build reads, and
// that the tables match their checksum. Events are decoded chunk by chunk (each
// chunk carries its own checksum); every inconsistency becomes a Corruption
// naming the file and the chunk. docs/trace-format.md, "Damaged files".
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "seer/trace.h"
#include "store/chunk_codec.h"
#include "store/coding.h"
#include "store/lmdb_check.h"
#include "store/lmdb_util.h"
#include "store/tables.h"

namespace seer::store {
namespace {

constexpr uint32_t kBatchEvents = 4096;

class LmdbTraceReader final : public TraceReader {
 public:
  explicit LmdbTraceReader(std::string path) { info_.path = std::move(path); }

  ~LmdbTraceReader() override {
    if (cursor_) mdb_cursor_close(cursor_);
    if (txn_) mdb_txn_abort(txn_);
    if (env_) mdb_env_close(env_);
  }

  Status Open() {
    const std::string& path = info_.path;
    struct stat st;
    if (stat(path.c_str(), &st) != 0) {
      if (errno == ENOENT) return Status::NotFound(path + ": no such file");
      return Status::IOError(path + ": " + std::strerror(errno));
    }
    if (S_ISDIR(st.st_mode)) return Status::InvalidArgument(path + ": is a directory, not a trace file");
    if (!S_ISREG(st.st_mode)) return Status::InvalidArgument(path + ": not a regular file");
    if (st.st_size == 0) return Status::Corruption(path + ": not a seer trace (empty file)");
    // LMDB keeps two meta pages at the front; anything shorter cannot be one.
    if (st.st_size < 8192) return Status::Corruption(path + ": not a seer trace (too short to be a trace file)");

    // Check the whole structure LMDB will walk before it maps the file
    // (store/lmdb_check.h): LMDB itself trusts every page number and size.
    LmdbFileLayout layout;
    {
      int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
      if (fd < 0) return Status::IOError(path + ": " + std::strerror(errno));
      Status s = CheckLmdbFile(fd, static_cast<uint64_t>(st.st_size), &layout);
      close(fd);
      if (!s.ok()) return s.WithContext(path);
    }

    int rc = mdb_env_create(&env_);
    if (rc != MDB_SUCCESS) return lmdb::Check(rc, path);
    mdb_env_set_maxdbs(env_, 8);
    // Map what the checked commit covers, not the map size its meta page asks
    // for: a damaged one could ask for any size. LMDB grows the map itself if
    // the file has gained commits since the check (then caught below).
    mdb_env_set_mapsize(env_, (layout.last_page + 1) * layout.page_size);
    rc = mdb_env_open(env_, path.c_str(), MDB_NOSUBDIR | MDB_NOLOCK | MDB_RDONLY, 0600);
    if (rc == MDB_INVALID) return Status::Corruption(path + ": not a seer trace (not an LMDB file)");
    if (rc == MDB_VERSION_MISMATCH) return Status::NotSupported(path + ": written by an incompatible LMDB version");
    if (rc != MDB_SUCCESS) return lmdb::Check(rc, path);

    rc = mdb_txn_begin(env_, nullptr, MDB_RDONLY, &txn_);
    if (rc != MDB_SUCCESS) return lmdb::Check(rc, path);
    // The check and LMDB must see the same commit: a file still being written
    // may have gained one in between, whose pages were not checked.
    if (mdb_txn_id(txn_) != layout.txnid) {
      changed_ = true;
      return Status::IOError(path + ": the file kept changing while being opened");
    }
    for (auto [name, dbi] : {std::pair{db::kMeta, &meta_db_},
                             {db::kThreads, &threads_db_},
                             {db::kModules, &modules_db_},
                             {db::kNames, &names_db_},
                             {db::kCounters, &counters_db_},
                             {db::kChunks, &chunks_db_}}) {
      rc = mdb_dbi_open(txn_, name, 0, dbi);
      if (rc == MDB_NOTFOUND || rc == MDB_INCOMPATIBLE)
        return Status::Corruption(path + ": not a seer trace (no '" + name + "' table)");
      if (rc != MDB_SUCCESS) return lmdb::Check(rc, path);
    }
    // Optional: traces written before seer kept times have no clock table.
    rc = mdb_dbi_open(txn_, db::kClock, 0, &clock_db_);
    if (rc == MDB_SUCCESS)
      have_clock_db_ = true;
    else if (rc == MDB_INCOMPATIBLE)
      return Status::Corruption(path + ": damaged: the 'clock' entry is not a table");
    else if (rc != MDB_NOTFOUND)
      return lmdb::Check(rc, path);

    // The format version first: another version's tables need not add up.
    Status s = ReadMeta();
    if (s.ok()) s = ReadTables();
    if (s.ok() && info_.format_version >= 2) s = CheckTablesChecksum();
    if (!s.ok()) return s.WithContext(path);

    MDB_stat chunk_stat;
    mdb_stat(txn_, chunks_db_, &chunk_stat);
    info_.chunks = chunk_stat.ms_entries;
    rc = mdb_cursor_open(txn_, chunks_db_, &cursor_);
    if (rc != MDB_SUCCESS) return lmdb::Check(rc, path);
    return Status::Ok();
  }

  const TraceInfo& info() const override { return info_; }
  // Open failed because the file gained a commit meanwhile: worth another try.
  bool changed() const { return changed_; }

  std::string Name(Namespace ns, uint64_t id) const override {
    std::string k = NameKey(ns, id);
    MDB_val key = lmdb::Val(k), val;
    if (mdb_get(txn_, names_db_, &key, &val) != MDB_SUCCESS) return std::string();
    return std::string(lmdb::View(val));
  }

  Status Next(std::vector<Event>* batch) override {
    if (!error_.ok()) {
      batch->clear();
      return error_;
    }
    while (decoder_.remaining() == 0) {
      if (at_end_) {
        batch->clear();
        return Status::Ok();
      }
      Status s = LoadNextChunk();
      if (!s.ok()) {
        batch->clear();
        return error_ = s;
      }
    }
    // Decode into the caller's buffer in place: resizing to the size it already
    // has (the common case) costs nothing, unlike clear() + resize().
    const uint32_t n = std::min(kBatchEvents, decoder_.remaining());
    batch->resize(n);
    Status s = decoder_.Decode(n, batch->data());
    if (!s.ok()) batch->clear();
    if (!s.ok()) return error_ = s.WithContext(info_.path + ": chunk " + std::to_string(chunk_number_));
    return Status::Ok();
  }

 private:
  Status ReadMeta() {
    MDB_cursor* c = nullptr;
    int rc = mdb_cursor_open(txn_, meta_db_, &c);
    if (rc != MDB_SUCCESS) return lmdb::Check(rc, "meta");
    MDB_val key, val;
    for (rc = mdb_cursor_get(c, &key, &val, MDB_FIRST); rc == MDB_SUCCESS;
         rc = mdb_cursor_get(c, &key, &val, MDB_NEXT)) {
      std::string k(lmdb::View(key));
      if (k == meta::kTablesChecksum) {
        stored_checksum_ = std::string(lmdb::View(val));
        continue;
      }
      tables_checksum_ += TableRecordHash(db::kMeta, k, lmdb::View(val));
      info_.meta[std::move(k)] = std::string(lmdb::View(val));
    }
    mdb_cursor_close(c);
    const std::string version = info_.Meta(meta::kFormatVersion);
    if (version.empty()) return Status::Corruption("not a seer trace (no format version)");
    char* end = nullptr;
    unsigned long v = std::strtoul(version.c_str(), &end, 10);
    if (*end != '\0') return Status::Corruption("bad format version '" + Printable(version) + "'");
    info_.format_version = static_cast<uint32_t>(v);
    // Version 1 is version 2 without the tables' checksum: still read (the
    // structure check protects it from crashes; damaged table values are not caught).
    if (info_.format_version != kTraceFormatVersion && info_.format_version != 1)
      return Status::NotSupported("trace format version " + Printable(version) + "; this seer reads versions 1 to " +
                                  std::to_string(kTraceFormatVersion));
    info_.complete = info_.Meta(meta::kComplete) == "1";
    return Status::Ok();
  }

  // After ReadMeta and ReadTables have summed every record: the tables are
  // exactly what the writer committed, or damaged.
  Status CheckTablesChecksum() {
    uint64_t stored = 0;
    if (!ParseTablesChecksum(stored_checksum_, &stored))
      return Status::Corruption("damaged: the tables' checksum is missing or unreadable");
    if (stored != tables_checksum_)
      return Status::Corruption(
          "damaged: the tables (metadata, threads, modules, names, counters, clock) do not match their checksum");
    return Status::Ok();
  }

  // Reads the thread, module and counters tables and sums every record of them
  // and of the names table into the tables' checksum.
  Status ReadTables() {
    auto scan = [&](MDB_dbi dbi, const char* table, auto&& fn) -> Status {
      MDB_cursor* c = nullptr;
      int rc = mdb_cursor_open(txn_, dbi, &c);
      if (rc != MDB_SUCCESS) return lmdb::Check(rc, "cursor");
      MDB_val key, val;
      Status s;
      for (rc = mdb_cursor_get(c, &key, &val, MDB_FIRST); rc == MDB_SUCCESS && s.ok();
           rc = mdb_cursor_get(c, &key, &val, MDB_NEXT)) {
        tables_checksum_ += TableRecordHash(table, lmdb::View(key), lmdb::View(val));
        s = fn(lmdb::View(key), lmdb::View(val));
        if (!s.ok()) s = Status::Corruption("damaged: " + s.message());
      }
      mdb_cursor_close(c);
      return s;
    };
    Status s = scan(threads_db_, db::kThreads, [&](std::string_view, std::string_view v) {
      ThreadInfo t;
      Status st = DecodeThread(std::string(v), &t);
      if (st.ok()) info_.threads.push_back(std::move(t));
      return st;
    });
    if (!s.ok()) return s;
    s = scan(modules_db_, db::kModules, [&](std::string_view, std::string_view v) {
      ModuleInfo m;
      Status st = DecodeModule(std::string(v), &m);
      if (st.ok()) info_.modules.push_back(std::move(m));
      return st;
    });
    if (!s.ok()) return s;
    s = scan(names_db_, db::kNames, [](std::string_view, std::string_view) { return Status::Ok(); });
    if (!s.ok()) return s;
    bool have_counters = false;
    s = scan(counters_db_, db::kCounters, [&](std::string_view k, std::string_view v) {
      if (k != "all") return Status::Ok();
      have_counters = true;
      return DecodeCounters(std::string(v), &info_.counters);
    });
    if (!s.ok()) return s;
    if (!have_counters) return Status::Corruption("no counters record");
    if (!have_clock_db_) return Status::Ok();
    return scan(clock_db_, db::kClock, [&](std::string_view k, std::string_view v) {
      if (k.size() != 8 || v.size() != 8) return Status::Corruption("a clock sample is not two 8-byte numbers");
      const ClockSample c{coding::DecodeBigEndian(reinterpret_cast<const uint8_t*>(k.data()), 8),
                          coding::DecodeBigEndian(reinterpret_cast<const uint8_t*>(v.data()), 8)};
      // Keys come in ascending order; the times must follow them.
      if (!info_.clock.empty() && c.ns < info_.clock.back().ns)
        return Status::Corruption("the clock goes back in time at event " + std::to_string(c.events));
      if (c.events > info_.counters.events)
        return Status::Corruption("a clock sample counts " + std::to_string(c.events) + " events, the trace has " +
                                  std::to_string(info_.counters.events));
      info_.clock.push_back(c);
      return Status::Ok();
    });
  }

  Status LoadNextChunk() {
    MDB_val key, val;
    int rc = mdb_cursor_get(cursor_, &key, &val, chunk_number_ < 0 ? MDB_FIRST : MDB_NEXT);
    if (rc == MDB_NOTFOUND) {
      at_end_ = true;
      if (next_index_ != info_.counters.events)
        return Status::Corruption(info_.path + ": the chunks hold " + std::to_string(next_index_) +
                                  " events, the counters say " + std::to_string(info_.counters.events));
      return Status::Ok();
    }
    if (rc != MDB_SUCCESS) return lmdb::Check(rc, info_.path + ": reading chunk " + std::to_string(chunk_number_ + 1));
    const std::string where = info_.path + ": chunk " + std::to_string(chunk_number_ + 1);
    if (key.mv_size != 8) return Status::Corruption(where + ": bad key");
    const int64_t number = static_cast<int64_t>(coding::DecodeBigEndian(static_cast<const uint8_t*>(key.mv_data), 8));
    if (number != chunk_number_ + 1)
      return Status::Corruption(where + ": chunk " + std::to_string(number) + " is out of sequence");
    chunk_number_ = number;
    Status s = decoder_.Load(lmdb::View(val));
    if (!s.ok()) return s.WithContext(where);
    if (decoder_.first_index() != next_index_)
      return Status::Corruption(where + ": starts at event " + std::to_string(decoder_.first_index()) + ", expected " +
                                std::to_string(next_index_));
    next_index_ += decoder_.event_count();
    return Status::Ok();
  }

  TraceInfo info_;
  MDB_env* env_ = nullptr;
  MDB_txn* txn_ = nullptr;
  MDB_cursor* cursor_ = nullptr;
  MDB_dbi meta_db_ = 0, threads_db_ = 0, modules_db_ = 0, names_db_ = 0, counters_db_ = 0, chunks_db_ = 0,
          clock_db_ = 0;
  bool have_clock_db_ = false;

  ChunkDecoder decoder_;
  int64_t chunk_number_ = -1;
  uint64_t next_index_ = 0;
  bool at_end_ = false;
  bool changed_ = false;
  uint64_t tables_checksum_ = 0;  // summed while reading the tables
  std::string stored_checksum_;
  Status error_;
};

}  // namespace
}  // namespace seer::store

// The contract of seer/trace.h, implemented by the store.
namespace seer {

Status TraceReader::Open(const std::string& path, std::unique_ptr<TraceReader>* out) {
  for (int attempt = 0;; ++attempt) {
    auto reader = std::make_unique<store::LmdbTraceReader>(path);
    Status s = reader->Open();
    if (!s.ok() && reader->changed() && attempt < 10) continue;
    if (!s.ok()) return s;
    *out = std::move(reader);
    return Status::Ok();
  }
}

}  // namespace seer
