// Which events of a small test trace conflict, decided byte by byte (a third
// account, apart from the model's cells and the witness checker's runs): a plain
// read, write or free covers the bytes [object, object + max(aux, 1)), and a
// byte is a new variable after each allocation covering it. Test traces record
// a free with the size its allocation had, so `aux` is the block's size.
#pragma once

#include <algorithm>
#include <cstdint>
#include <map>
#include <set>
#include <utility>
#include <vector>

#include "seer/event.h"

namespace seer::test {

class ByteVariables {
 public:
  explicit ByteVariables(const std::vector<Event>& trace) : trace_(trace), bytes_(trace.size()) {
    std::map<uint64_t, int> generation;
    for (size_t i = 0; i < trace.size(); ++i) {
      const Event& e = trace[i];
      const uint64_t size = std::max<uint64_t>(e.aux, 1);
      if (e.kind == EventKind::kAlloc)
        for (uint64_t b = e.object; b < e.object + size; ++b) ++generation[b];
      if (Plain(e.kind))
        for (uint64_t b = e.object; b < e.object + size; ++b) bytes_[i].insert({b, generation[b]});
    }
  }

  // Events i and j (trace positions) of different threads, plain accesses or
  // frees, at least one a write or free, share a byte of one generation.
  bool PlainConflict(size_t i, size_t j) const {
    const Event &a = trace_[i], &b = trace_[j];
    if (a.tid == b.tid || !Plain(a.kind) || !Plain(b.kind)) return false;
    if (a.kind == EventKind::kRead && b.kind == EventKind::kRead) return false;
    return std::any_of(bytes_[i].begin(), bytes_[i].end(), [&](const auto& byte) { return bytes_[j].count(byte); });
  }

 private:
  static bool Plain(EventKind k) { return k == EventKind::kRead || k == EventKind::kWrite || k == EventKind::kFree; }

  const std::vector<Event>& trace_;
  std::vector<std::set<std::pair<uint64_t, int>>> bytes_;
};

}  // namespace seer::test
