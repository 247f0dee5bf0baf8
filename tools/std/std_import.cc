// The STD parser runs at several million lines a second: the file is mapped, each
// line is split by hand, and names are looked up as string_views into the mapping
// itself, so no line is ever copied.
#include "tools/std/std_import.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <string_view>
#include <vector>

#include "store/chunk_codec.h"
#include "tools/std/std_ops.h"

namespace seer {
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
    const size_t mask = slots_.size() - 1;
    for (size_t i = h & mask;; i = (i + 1) & mask) {
      Slot& slot = slots_[i];
      if (slot.id == kEmpty) {
        *fresh = true;
        slot = {h, head, name.data(), static_cast<uint32_t>(name.size()), size_};
        const uint32_t id = size_++;
        if (size_ * 2 > slots_.size()) Grow();
        return id;
      }
      if (slot.hash == h && slot.head == head && slot.len == name.size() &&
          (name.size() <= 8 || std::memcmp(slot.data + 8, name.data() + 8, name.size() - 8) == 0)) {
        *fresh = false;
        return slot.id;
      }
    }
  }
  size_t size() const { return size_; }

 private:
  static constexpr uint32_t kEmpty = ~0u;
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

// Who holds a lock, and how many times over (re-acquisition by the holder is kept).
struct LockState {
  int64_t holder = -1;
  uint64_t depth = 0;
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
    } else if (d == Decor::kThread) {
      uint32_t child;
      s = ThreadId(decor, &child, e.kind == EventKind::kFork ? e.tid : -1);
      if (!s.ok()) return s;
      e.object = child;
    } else {
      bool fresh;
      IdMap& ids = d == Decor::kLock ? locks_ : variables_;
      e.object = ids.Find(decor, &fresh);
      if (fresh && !std_format::IsValidName(decor)) return BadName(decor);
      if (fresh) w_->SetName(d == Decor::kLock ? Namespace::kLock : Namespace::kVariable, e.object, std::string(decor));
      if (IsMemoryEvent(e.kind)) e.aux = 1;  // one byte per variable: distinct variables never overlap
    }

    if (e.kind == EventKind::kAcquire || e.kind == EventKind::kRelease) {
      s = CheckLock(e, decor);
      if (!s.ok()) return s;
    }
    return w_->Append(e);
  }

  // The id of a thread named on this line; `forker` is the thread that forks it,
  // recorded as the parent of a thread first seen there.
  Status ThreadId(std::string_view name, uint32_t* tid, int64_t forker = -1) {
    bool fresh;
    uint32_t id = thread_ids_.Find(name, &fresh);
    if (fresh) {
      if (!std_format::IsValidName(name)) return BadName(name);
      if (id >= kMaxThreads) return Status::InvalidArgument("more than " + std::to_string(kMaxThreads) + " threads");
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
    return Status::InvalidArgument("bad name `" + Shown(name) + "`: names are non-empty, without `|`, `(`, `)` or spaces");
  }

  Status CheckLock(const Event& e, std::string_view name) {
    if (e.object >= lock_state_.size()) lock_state_.resize(e.object + 1);
    LockState& l = lock_state_[e.object];
    if (e.kind == EventKind::kAcquire) {
      if (l.depth > 0 && l.holder != e.tid)
        return Status::InvalidArgument("thread `" + threads_[e.tid].name + "` acquires lock `" + std::string(name) +
                                       "` held by thread `" + threads_[l.holder].name + "`");
      l.holder = e.tid;
      ++l.depth;
      return Status::Ok();
    }
    if (l.depth == 0 || l.holder != e.tid)
      return Status::InvalidArgument("thread `" + threads_[e.tid].name + "` releases lock `" + std::string(name) +
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

}  // namespace seer
