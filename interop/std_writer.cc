#include "interop/std_writer.h"

#include <cerrno>
#include <charconv>
#include <cstring>

#include "interop/std_ops.h"

namespace seer::interop {
namespace {

constexpr size_t kFlushBytes = 1 << 20;

void AppendNumber(std::string* out, uint64_t v) {
  char buf[24];
  auto r = std::to_chars(buf, buf + sizeof buf, v);
  out->append(buf, r.ptr);
}

}  // namespace

StdTextWriter::StdTextWriter(std::FILE* out) : out_(out) { buf_.reserve(kFlushBytes + 4096); }

void StdTextWriter::SetName(Namespace ns, uint64_t id, const std::string& name) {
  switch (ns) {
    case Namespace::kThread: threads_.Give(id, name); break;
    case Namespace::kLock: locks_.Give(id, name); break;
    case Namespace::kVariable: variables_.Give(id, name); break;
  }
}

const std::string& StdTextWriter::NameTable::Resolve(uint64_t id, bool* fresh) {
  if (fresh) *fresh = false;
  if (id < dense_.size() && !dense_[id].empty()) return dense_[id];
  if (id >= kDenseLimit) {
    auto it = sparse_.find(id);
    if (it != sparse_.end()) return it->second;
  }
  if (fresh) *fresh = true;
  return Assign(id);
}

const std::string& StdTextWriter::NameTable::Assign(uint64_t id) {
  std::string name;
  auto given = given_.find(id);
  if (given != given_.end() && std_format::IsValidName(given->second) && !used_.count(given->second))
    name = given->second;
  else
    name = prefix_ + std::to_string(id);
  // A fallback can collide with a name given to another id ("L3" naming lock 7).
  while (used_.count(name)) name += '_';
  used_.insert(name);
  if (id >= kDenseLimit) return sparse_[id] = std::move(name);
  if (id >= dense_.size()) dense_.resize(id + 1);
  return dense_[id] = std::move(name);
}

Status StdTextWriter::Append(const Event& e) {
  using std_format::Decor;
  buf_ += threads_.Resolve(e.tid);
  buf_ += '|';
  buf_ += std_format::OpName(e.kind);
  size_t attributes_start = 0;  // where attributes begin; 0: none written
  switch (std_format::DecorOf(e.kind)) {
    case Decor::kNone: break;
    case Decor::kThread:
      buf_ += '(';
      buf_ += threads_.Resolve(e.object);
      buf_ += ')';
      break;
    case Decor::kLock:
      buf_ += '(';
      buf_ += locks_.Resolve(e.object);
      attributes_start = buf_.size();
      AppendLockAttributes(e);
      if (buf_.size() == attributes_start) attributes_start = 0;
      buf_ += ')';
      break;
    case Decor::kVariable: {
      bool fresh;
      buf_ += '(';
      buf_ += variables_.Resolve(e.object, &fresh);
      attributes_start = buf_.size();
      AppendVariableAttributes(e, fresh);
      if (buf_.size() == attributes_start) attributes_start = 0;
      buf_ += ')';
      break;
    }
    case Decor::kNumber:
      buf_ += '(';
      AppendNumber(&buf_, e.object);
      buf_ += ')';
      break;
    case Decor::kOrder:
      buf_ += '(';
      buf_ += std_format::MemoryOrderName(e.mode);
      buf_ += ')';
      break;
  }
  if (attributes_start != 0 || !std_format::IsRapidKind(e.kind)) ++non_rapid_;
  buf_ += '|';
  AppendNumber(&buf_, e.pc);
  buf_ += '\n';
  ++events_;
  if (buf_.size() >= kFlushBytes) return Flush();
  return Status::Ok();
}

// docs/trace-format.md, "Attributes": what a plain RAPID line cannot say, as
// ` key=value` words after the name (names never contain spaces).
void StdTextWriter::AppendVariableAttributes(const Event& e, bool fresh) {
  if (addressed_ && fresh) {
    // Import gives a variable without `at=` the next dense id it has not given
    // (skipping ids `at=` took): only a variable with another id needs `at=`.
    while (at_ids_.count(next_dense_id_)) ++next_dense_id_;
    if (e.object == next_dense_id_) {
      ++next_dense_id_;
    } else {
      at_ids_.insert(e.object);
      buf_ += " at=";
      AppendNumber(&buf_, e.object);
    }
  }
  if (e.aux != 1) {
    buf_ += " size=";
    AppendNumber(&buf_, e.aux);
    if (!addressed_) ++lossy_;
  }
  if (IsAtomicAccess(e.kind) && e.mode != 0) {
    buf_ += " order=";
    buf_ += std_format::MemoryOrderName(e.mode);
  }
  if (e.kind == EventKind::kAlloc && e.mode != 0) {
    buf_ += " region=";
    buf_ += std_format::AllocRegionName(e.mode);
  }
}

void StdTextWriter::AppendLockAttributes(const Event& e) {
  if (IsNonBlockingAcquire(e)) ++nonblocking_;  // no attribute: see nonblocking_acquires()
  if ((e.kind == EventKind::kAcquire || e.kind == EventKind::kRelease || e.kind == EventKind::kLockWait ||
       e.kind == EventKind::kLockRequest) &&
      e.mode == static_cast<uint8_t>(LockMode::kShared))
    buf_ += " mode=shared";
  if (e.kind == EventKind::kCondWaitBegin || e.kind == EventKind::kCondWaitEnd) {
    buf_ += " mutex=";
    buf_ += locks_.Resolve(e.aux);
  }
  if (e.kind == EventKind::kLockWait && e.aux != 0) {
    buf_ += " waited=";
    AppendNumber(&buf_, e.aux);
  }
}

Status StdTextWriter::Flush() {
  if (!buf_.empty()) {
    const size_t want = buf_.size();
    const size_t n = std::fwrite(buf_.data(), 1, want, out_);
    buf_.clear();
    if (n != want) return Status::IOError(std::string("write: ") + std::strerror(errno));
  }
  if (std::fflush(out_) != 0) return Status::IOError(std::string("write: ") + std::strerror(errno));
  return Status::Ok();
}

}  // namespace seer::interop
