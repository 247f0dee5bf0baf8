// The STD parser runs at several million lines a second: the file is mapped, each
// line is split by hand, and names are looked up as string_views into the mapping
// itself, so no line is ever copied.
#include "interop/std_import.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <optional>
#include <string_view>
#include <unordered_set>
#include <utility>
#include <vector>

#include "interop/std_ops.h"
#include "store/chunk_codec.h"

namespace seer::interop {
namespace {

using std_format::Decor;

// A read-only mapping of the whole input file.
class MappedFile {
 public:
  ~MappedFile() {
    if (data_ && size_) munmap(const_cast<char*>(data_), size_);
  }
  Status Open(const std::string& path) {
    int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
      if (errno == ENOENT) return Status::NotFound(path + ": no such file");
      return Status::IOError(path + ": " + std::strerror(errno));
    }
    struct stat st;
    if (fstat(fd, &st) != 0) {
      Status s = Status::IOError(path + ": " + std::strerror(errno));
      close(fd);
      return s;
    }
    if (S_ISDIR(st.st_mode)) {
      close(fd);
      return Status::InvalidArgument(path + ": is a directory, not an STD trace");
    }
    size_ = static_cast<size_t>(st.st_size);
    if (size_ > 0) {
      void* p = mmap(nullptr, size_, PROT_READ, MAP_PRIVATE, fd, 0);
      if (p == MAP_FAILED) {
        Status s = Status::IOError(path + ": cannot map: " + std::strerror(errno));
        close(fd);
        size_ = 0;
        return s;
      }
      madvise(p, size_, MADV_SEQUENTIAL);
      data_ = static_cast<const char*>(p);
    }
    close(fd);
    return Status::Ok();
  }
  std::string_view view() const { return std::string_view(data_ ? data_ : "", size_); }

 private:
  const char* data_ = nullptr;
  size_t size_ = 0;
};

// Dense ids for names, in order of first appearance. Keys point into the mapped
// file. Open addressing with the hash and the first eight bytes kept in the slot:
// most names are that short, and std::unordered_map's node chasing and memcmp
// calls were most of the import time.
class IdMap {
 public:
  // Names lie in [.., limit): loads of eight bytes never pass it.
  explicit IdMap(const char* limit) : limit_(limit), slots_(1024) {}

  // Returns the id of `name`, and sets *fresh when it is new.
  uint32_t Find(std::string_view name, bool* fresh) {
    const uint64_t head = Head(name);
    const uint64_t h = Hash(name, head);
    Slot& slot = slots_[Probe(name, head, h)];
    *fresh = slot.id == kEmpty;
    if (!*fresh) return slot.id;
    slot = {h, head, name.data(), static_cast<uint32_t>(name.size()), size_};
    const uint32_t id = size_++;
    if (size_ * 2 > slots_.size()) Grow();
    return id;
  }
  // The id of `name`, or kMissing when it has none yet.
  static constexpr uint32_t kMissing = ~0u;
  uint32_t Lookup(std::string_view name) const {
    const uint64_t head = Head(name);
    return slots_[Probe(name, head, Hash(name, head))].id;
  }
  size_t size() const { return size_; }

 private:
  static constexpr uint32_t kEmpty = kMissing;
  struct Slot {
    uint64_t hash = 0;
    uint64_t head = 0;  // the first eight bytes, zero-padded
    const char* data = nullptr;
    uint32_t len = 0;
    uint32_t id = kEmpty;
  };

  uint64_t Head(std::string_view s) const {
    uint64_t w = 0;
    if (s.size() >= 8) {
      std::memcpy(&w, s.data(), 8);
    } else if (s.data() + 8 <= limit_) {
      std::memcpy(&w, s.data(), 8);  // one fixed-size load, then drop the bytes past the name
      w &= (uint64_t{1} << (8 * s.size())) - 1;
    } else {
      std::memcpy(&w, s.data(), s.size());
    }
    return w;
  }

  // Each word mixed in with a multiply; the high half folded down before the low
  // bits pick the slot (a multiply only carries bits upwards).
  static uint64_t Hash(std::string_view s, uint64_t head) {
    uint64_t h = (0x9e3779b97f4a7c15ull ^ s.size() ^ head) * 0xbf58476d1ce4e5b9ull;
    for (size_t i = 8; i < s.size(); i += 8) {
      uint64_t w = 0;
      std::memcpy(&w, s.data() + i, std::min<size_t>(8, s.size() - i));
      h = (h ^ (h >> 31) ^ w) * 0xbf58476d1ce4e5b9ull;
    }
    h ^= h >> 32;
    h *= 0x94d049bb133111ebull;
    return h ^ (h >> 29);
  }

  // The slot holding `name`, or the empty slot where it would go.
  size_t Probe(std::string_view name, uint64_t head, uint64_t h) const {
    const size_t mask = slots_.size() - 1;
    for (size_t i = h & mask;; i = (i + 1) & mask) {
      const Slot& slot = slots_[i];
      if (slot.id == kEmpty) return i;
      if (slot.hash == h && slot.head == head && slot.len == name.size() &&
          (name.size() <= 8 || std::memcmp(slot.data + 8, name.data() + 8, name.size() - 8) == 0))
        return i;
    }
  }

  void Grow() {
    std::vector<Slot> old(slots_.size() * 2);
    old.swap(slots_);
    const size_t mask = slots_.size() - 1;
    for (const Slot& slot : old) {
      if (slot.id == kEmpty) continue;
      size_t i = slot.hash & mask;
      while (slots_[i].id != kEmpty) i = (i + 1) & mask;
      slots_[i] = slot;
    }
  }

  const char* limit_;
  std::vector<Slot> slots_;
  uint32_t size_ = 0;
};

// Who holds a lock, and how many times over (re-acquisition by the holder is
// kept): one exclusive holder, or any number of read-mode (shared) holders.
struct LockState {
  int64_t holder = -1;
  uint64_t depth = 0;
  std::vector<std::pair<uint32_t, uint64_t>> readers;  // (tid, depth)
};

// What the ` key=value` words after a name say (docs/trace-format.md, "Attributes").
struct Attributes {
  std::optional<uint64_t> at;     // memory events: the variable's byte address
  std::optional<uint64_t> size;   // memory events: bytes (default 1)
  std::optional<uint8_t> order;   // atomic accesses: MemoryOrder (default relaxed)
  std::optional<uint8_t> region;  // alloc: AllocRegion (default heap)
  bool shared = false;            // acq / rel: `mode=shared`
  std::string_view mutex;         // cond waits: the mutex's name
  uint64_t waited_ns = 0;         // lock_wait: `waited=NS`
};

std::string Shown(std::string_view s) {
  constexpr size_t kMax = 80;
  std::string out;
  for (char c : s.substr(0, kMax)) out.push_back(c >= 0x20 && c < 0x7f ? c : '?');
  if (s.size() > kMax) out += "...";
  return out;
}

class StdImporter {
 public:
  StdImporter(const std::string& path, TraceWriter* w, std::string_view text)
      : path_(path), w_(w), text_(text), thread_ids_(Limit()), locks_(Limit()), variables_(Limit()) {}

  Status Run(const std::function<void(uint64_t)>& progress, ImportStats* stats) {
    const std::string_view text = text_;
    w_->SetMeta(meta::kSource, "std-import");
    w_->SetMeta(meta::kPcKind, "location");
    size_t pos = 0;
    uint64_t line_no = 0;
    while (pos < text.size()) {
      const char* start = text.data() + pos;
      const void* nl = std::memchr(start, '\n', text.size() - pos);
      size_t len = nl ? static_cast<const char*>(nl) - start : text.size() - pos;
      pos += len + (nl ? 1 : 0);
      ++line_no;
      std::string_view line(start, len);
      if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
      if (IsBlank(line)) continue;
      Status s = Line(line);
      if (!s.ok()) return s.WithContext(path_ + ":" + std::to_string(line_no));
      if (progress && (line_no & 0xffff) == 0) progress(line_no);
    }
    for (const ThreadInfo& t : threads_) {
      w_->AddThread(t);
      w_->SetName(Namespace::kThread, t.tid, t.name);
    }
    if (stats) {
      stats->lines = line_no;
      stats->events = w_->events_written();
      stats->threads = threads_.size();
      stats->locks = locks_.size();
      stats->variables = variables_.size();
    }
    if (progress) progress(line_no);
    return Status::Ok();
  }

 private:
  static bool IsBlank(std::string_view line) {
    for (char c : line)
      if (c != ' ' && c != '\t') return false;
    return true;
  }

  Status Line(std::string_view line) {
    const size_t bar1 = line.find('|');
    const size_t bar2 = bar1 == std::string_view::npos ? bar1 : line.find('|', bar1 + 1);
    if (bar2 == std::string_view::npos || line.find('|', bar2 + 1) != std::string_view::npos)
      return Status::InvalidArgument("expected `thread|op(arg)|loc`, found `" + Shown(line) + "`");
    const std::string_view thread = line.substr(0, bar1);
    const std::string_view op_text = line.substr(bar1 + 1, bar2 - bar1 - 1);
    const std::string_view loc = line.substr(bar2 + 1);

    std::string_view op = op_text, decor;
    bool has_decor = false;
    if (size_t paren = op_text.find('('); paren != std::string_view::npos) {
      if (op_text.back() != ')')
        return Status::InvalidArgument("operation `" + Shown(op_text) + "` lacks its closing `)`");
      op = op_text.substr(0, paren);
      decor = op_text.substr(paren + 1, op_text.size() - paren - 2);
      has_decor = true;
    }
    auto kind = std_format::KindOfOp(op);
    if (!kind) return Status::InvalidArgument("unknown operation `" + Shown(op) + "`");

    Event e;
    e.kind = *kind;
    auto [end, ec] = std::from_chars(loc.data(), loc.data() + loc.size(), e.pc);
    if (loc.empty() || ec != std::errc() || end != loc.data() + loc.size())
      return Status::InvalidArgument("location `" + Shown(loc) + "` is not a non-negative integer");

    Status s;
    if (last_tid_ != kNoThread && thread == last_thread_) {
      e.tid = last_tid_;  // most lines continue the previous line's thread
    } else {
      s = ThreadId(thread, &e.tid);
      if (!s.ok()) return s;
      last_thread_ = thread;
      last_tid_ = e.tid;
    }

    const Decor d = std_format::DecorOf(e.kind);
    if (d == Decor::kNone) {
      // RAPID accepts `begin` and `begin(...)` alike; the decoration carries nothing.
    } else if (!has_decor) {
      return Status::InvalidArgument("operation `" + Shown(op) + "` needs an argument: `" + Shown(op) + "(name)`");
    } else if (d == Decor::kNumber) {
      auto [p, err] = std::from_chars(decor.data(), decor.data() + decor.size(), e.object);
      if (decor.empty() || err != std::errc() || p != decor.data() + decor.size())
        return Status::InvalidArgument("argument `" + Shown(decor) + "` of `" + Shown(op) + "` is not an integer");
    } else if (d == Decor::kOrder) {
      const std::optional<uint8_t> order = std_format::MemoryOrderFromName(decor);
      if (!order)
        return Status::InvalidArgument(
            "`" + Shown(decor) + "` is not a memory order (relaxed, consume, acquire, release, acq_rel, seq_cst)");
      e.mode = *order;
    } else if (d == Decor::kThread) {
      uint32_t child;
      s = ThreadId(decor, &child, e.kind == EventKind::kFork ? e.tid : -1);
      if (!s.ok()) return s;
      e.object = child;
    } else {
      // Most lines name a known object and have no attributes (a known name has
      // no space): one lookup, no Attributes built, and statuses constructed,
      // not assigned (each showed in profiles).
      static const Attributes kNone;
      IdMap& ids = d == Decor::kLock ? locks_ : variables_;
      if (const uint32_t known = ids.Lookup(decor); known != IdMap::kMissing) {
        if (Status bad = Object(d, decor, known, false, kNone, &e); !bad.ok()) return bad;
      } else {
        const size_t space = std::min(decor.find(' '), decor.size());
        const std::string_view name = decor.substr(0, space);
        bool fresh;
        const uint32_t index = ids.Find(name, &fresh);
        if (fresh && !std_format::IsValidName(name)) return BadName(name);
        Attributes a;
        if (space < decor.size())
          if (Status bad = ParseAttributes(e.kind, op, decor.substr(space + 1), &a); !bad.ok()) return bad;
        if (Status bad = Object(d, name, index, fresh, a, &e); !bad.ok()) return bad;
      }
    }

    return w_->Append(e);
  }

  static Status ParseAttributes(EventKind kind, std::string_view op, std::string_view text, Attributes* a) {
    const bool lock_op = kind == EventKind::kAcquire || kind == EventKind::kRelease || kind == EventKind::kLockWait ||
                         kind == EventKind::kLockRequest;
    const bool cond_op = kind == EventKind::kCondWaitBegin || kind == EventKind::kCondWaitEnd;
    while (!text.empty()) {
      const size_t space = text.find(' ');
      const std::string_view word = text.substr(0, space);
      text = space == std::string_view::npos ? std::string_view() : text.substr(space + 1);
      if (word.empty()) continue;
      const size_t eq = word.find('=');
      const std::string_view key = word.substr(0, eq);
      const std::string_view value = eq == std::string_view::npos ? std::string_view() : word.substr(eq + 1);
      bool ok = !value.empty();
      if ((key == "at" || key == "size") && IsMemoryEvent(kind)) {
        uint64_t v = 0;
        auto [p, err] = std::from_chars(value.data(), value.data() + value.size(), v);
        ok = ok && err == std::errc() && p == value.data() + value.size();
        (key == "at" ? a->at : a->size) = v;
      } else if (key == "order" && IsAtomicAccess(kind)) {
        a->order = std_format::MemoryOrderFromName(value);
        ok = ok && a->order.has_value();
      } else if (key == "region" && kind == EventKind::kAlloc) {
        a->region = std_format::AllocRegionFromName(value);
        ok = ok && a->region.has_value();
      } else if (key == "mode" && lock_op) {
        ok = value == "shared" || value == "exclusive";
        a->shared = value == "shared";
      } else if (key == "mutex" && cond_op) {
        if (!std_format::IsValidName(value)) return BadName(value);
        a->mutex = value;
      } else if (key == "waited" && kind == EventKind::kLockWait) {
        auto [p, err] = std::from_chars(value.data(), value.data() + value.size(), a->waited_ns);
        ok = ok && err == std::errc() && p == value.data() + value.size();
      } else {
        return Status::InvalidArgument("attribute `" + Shown(word) + "` does not apply to `" + Shown(op) + "`");
      }
      if (!ok) return Status::InvalidArgument("bad value in attribute `" + Shown(word) + "` of `" + Shown(op) + "`");
    }
    return Status::Ok();
  }

  // `name` has IdMap index `index` (`fresh`: given on this line, and valid).
  Status Object(Decor d, std::string_view name, uint32_t index, bool fresh, const Attributes& a, Event* e) {
    return d == Decor::kLock ? LockObject(name, index, fresh, a, e) : VariableObject(name, index, fresh, a, e);
  }

  // Locks (and other sync objects) get dense ids; lock semantics are checked.
  Status LockObject(std::string_view name, uint32_t index, bool fresh, const Attributes& a, Event* e) {
    e->object = index;
    if (fresh) w_->SetName(Namespace::kLock, index, std::string(name));
    Status s;
    if (e->kind == EventKind::kLockWait) e->aux = a.waited_ns;
    if (e->kind == EventKind::kLockWait || e->kind == EventKind::kLockRequest)
      e->mode = static_cast<uint8_t>(a.shared ? LockMode::kShared : LockMode::kExclusive);
    if (e->kind == EventKind::kAcquire || e->kind == EventKind::kRelease) {
      e->mode = static_cast<uint8_t>(a.shared ? LockMode::kShared : LockMode::kExclusive);
      return CheckLock(*e, e->object, e->kind == EventKind::kAcquire, a.shared, name);
    }
    if (e->kind == EventKind::kCondWaitBegin || e->kind == EventKind::kCondWaitEnd) {
      const std::string op(std_format::OpName(e->kind));
      if (a.mutex.empty())
        return Status::InvalidArgument("`" + op + "` needs the mutex it releases: `" + op + "(" + Shown(name) +
                                       " mutex=m)`");
      s = LockId(a.mutex, &e->aux);
      if (!s.ok()) return s;
      // A cond wait's begin releases the mutex; its end re-acquires it.
      return CheckLock(*e, e->aux, e->kind == EventKind::kCondWaitEnd, false, a.mutex);
    }
    return Status::Ok();
  }

  Status LockId(std::string_view name, uint64_t* id) {
    bool fresh;
    *id = locks_.Find(name, &fresh);
    if (fresh && !std_format::IsValidName(name)) return BadName(name);
    if (fresh) w_->SetName(Namespace::kLock, *id, std::string(name));
    return Status::Ok();
  }

  // Variables get dense ids in order of first appearance, one byte each, unless
  // `at=` gives the byte address (then distinct variables may overlap).
  Status VariableObject(std::string_view name, uint32_t index, bool fresh, const Attributes& a, Event* e) {
    if (fresh) {
      uint64_t id;
      if (a.at) {
        id = *a.at;
        // Every id below next_dense_id_ is taken, by a dense id or an address.
        if (id < next_dense_id_ || addressed_ids_.count(id))
          return Status::InvalidArgument("variable `" + Shown(name) + "` is at address " + std::to_string(id) +
                                         ", the id of another variable");
        addressed_ids_.insert(id);
      } else {
        while (addressed_ids_.count(next_dense_id_)) ++next_dense_id_;
        id = next_dense_id_++;
      }
      variable_ids_.push_back(id);
      w_->SetName(Namespace::kVariable, id, std::string(name));
    }
    e->object = variable_ids_[index];
    if (a.at && *a.at != e->object)
      return Status::InvalidArgument("variable `" + Shown(name) + "` is at address " + std::to_string(e->object) +
                                     ", not " + std::to_string(*a.at));
    e->aux = a.size.value_or(1);  // plain lines: one byte per variable, so distinct ones never overlap
    if (IsAtomicAccess(e->kind)) e->mode = a.order.value_or(0);
    if (e->kind == EventKind::kAlloc) e->mode = a.region.value_or(0);
    return Status::Ok();
  }

  // The id of a thread named on this line; `forker` is the thread that forks it,
  // recorded as the parent of a thread first seen there.
  Status ThreadId(std::string_view name, uint32_t* tid, int64_t forker = -1) {
    bool fresh;
    uint32_t id = thread_ids_.Find(name, &fresh);
    if (fresh) {
      if (!std_format::IsValidName(name)) return BadName(name);
      if (id >= store::kMaxThreads)
        return Status::InvalidArgument("more than " + std::to_string(store::kMaxThreads) + " threads");
      ThreadInfo t;
      t.tid = id;
      t.parent = forker;
      t.name = std::string(name);
      threads_.push_back(std::move(t));
    }
    *tid = id;
    return Status::Ok();
  }

  static Status BadName(std::string_view name) {
    return Status::InvalidArgument("bad name `" + Shown(name) +
                                   "`: names are non-empty, without `|`, `(`, `)` or spaces");
  }

  // `tid` acquires (or releases) `lock` in shared or exclusive mode.
  Status CheckLock(const Event& e, uint64_t lock, bool acquire, bool shared, std::string_view name) {
    if (lock >= lock_state_.size()) lock_state_.resize(lock + 1);
    LockState& l = lock_state_[lock];
    const std::string& who = threads_[e.tid].name;
    auto reader = std::find_if(l.readers.begin(), l.readers.end(), [&](const auto& r) { return r.first == e.tid; });
    if (acquire) {
      if (l.depth > 0 && l.holder != e.tid)
        return Status::InvalidArgument("thread `" + who + "` acquires lock `" + std::string(name) +
                                       "` held by thread `" + threads_[l.holder].name + "`");
      if (!shared)
        for (const auto& r : l.readers)
          if (r.first != e.tid)
            return Status::InvalidArgument("thread `" + who + "` acquires lock `" + std::string(name) +
                                           "` held in read mode by thread `" + threads_[r.first].name + "`");
      if (!shared) {
        l.holder = e.tid;
        ++l.depth;
      } else if (reader != l.readers.end()) {
        ++reader->second;
      } else {
        l.readers.push_back({e.tid, 1});
      }
      return Status::Ok();
    }
    // A release names the mode it releases; a recorder that cannot tell may say
    // exclusive for a read-mode holding, so either holding of the thread counts.
    const bool holds_exclusive = l.depth > 0 && l.holder == e.tid;
    if (reader != l.readers.end() && (shared || !holds_exclusive)) {
      if (--reader->second == 0) l.readers.erase(reader);
      return Status::Ok();
    }
    if (!holds_exclusive)
      return Status::InvalidArgument("thread `" + who + "` releases lock `" + std::string(name) +
                                     "`, which it does not hold");
    if (--l.depth == 0) l.holder = -1;
    return Status::Ok();
  }

  const char* Limit() const { return text_.data() + text_.size(); }

  const std::string& path_;
  TraceWriter* w_;
  const std::string_view text_;
  IdMap thread_ids_, locks_, variables_;
  std::vector<ThreadInfo> threads_;
  std::vector<LockState> lock_state_;
  // Variable ids: by IdMap index; dense ids skip the addresses `at=` gave.
  std::vector<uint64_t> variable_ids_;
  std::unordered_set<uint64_t> addressed_ids_;
  uint64_t next_dense_id_ = 0;
  // The thread of the previous line.
  static constexpr uint32_t kNoThread = ~0u;
  std::string_view last_thread_;
  uint32_t last_tid_ = kNoThread;
};

}  // namespace

Status ImportStd(const std::string& in_path, TraceWriter* w, ImportStats* stats,
                 const std::function<void(uint64_t)>& progress) {
  MappedFile file;
  Status s = file.Open(in_path);
  if (!s.ok()) return s;
  StdImporter importer(in_path, w, file.view());
  return importer.Run(progress, stats);
}

}  // namespace seer::interop
