// CallSiteFilter: address ranges of libc's text and of its syscall() function.
#include "recorder/ebpf/call_site_filter.h"

#include <map>
#include <utility>

#include "recorder/elf_file.h"

namespace seer::recorder {

void CallSiteFilter::Add(const std::string& libc, const std::vector<Mapping>& maps) {
  std::vector<Range> libc_text, syscall_fn, loader_text, loader_data;
  const Mapping* loader = FindMappedFile(maps, "ld-linux");
  std::map<std::string, FunctionLocation> where;
  if (!ResolveFunctions(libc, {"syscall"}, &where).ok()) where.clear();
  auto fn = where.find("syscall");
  for (const auto& m : maps) {
    if (loader && m.executable && m.path == loader->path) loader_text.push_back({m.start, m.end});
    if (loader && !m.executable && m.path == loader->path) loader_data.push_back({m.start, m.end});
    if (!m.executable || m.path != libc) continue;
    libc_text.push_back({m.start, m.end});
    if (fn == where.end()) continue;
    uint64_t off = fn->second.file_offset;
    if (off >= m.offset && off < m.offset + (m.end - m.start)) {
      uint64_t addr = m.start + (off - m.offset);
      syscall_fn.push_back({addr, addr + fn->second.size});
    }
  }
  Merge(std::move(libc_text), &libc_text_);
  Merge(std::move(syscall_fn), &syscall_fn_);
  Merge(std::move(loader_text), &loader_text_);
  Merge(std::move(loader_data), &loader_data_);
  // Until libc is mapped, a futex call cannot be told libc's own.
  ready_ = !libc_text_.empty();
}

void CallSiteFilter::Merge(std::vector<Range> found, std::vector<Range>* known) {
  for (const Range& r : found) {
    bool seen = false;
    for (const Range& k : *known) seen = seen || (k.start == r.start && k.end == r.end);
    if (!seen) known->push_back(r);
  }
}

bool CallSiteFilter::IsLibcInternalFutex(uint64_t ip) const {
  for (const auto& r : syscall_fn_)
    if (ip >= r.start && ip <= r.end) return false;  // ip is after the syscall insn: allow the end
  return Contains(libc_text_, ip);
}

}  // namespace seer::recorder

namespace seer::recorder {

bool CallSiteFilter::Contains(const std::vector<Range>& ranges, uint64_t addr) {
  for (const auto& r : ranges)
    if (addr >= r.start && addr < r.end) return true;
  return false;
}

bool CallSiteFilter::IsLoaderCall(uint64_t pc) const { return Contains(loader_text_, pc); }

bool CallSiteFilter::IsLoaderLock(uint64_t object) const { return Contains(loader_data_, object); }

}  // namespace seer::recorder
