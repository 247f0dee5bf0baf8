#include "pc_lines.h"

#include <cstdio>
#include <memory>
#include <vector>

#include "seer/trace.h"

namespace seer::test {

bool PcLines(const std::string& trace, const std::set<uint64_t>& pcs, std::map<uint64_t, std::string>* out,
             std::string* error) {
  std::unique_ptr<TraceReader> reader;
  const Status s = TraceReader::Open(trace, &reader);
  if (!s.ok()) {
    *error = s.ToString();
    return false;
  }
  for (const ModuleInfo& m : reader->info().modules) {
    std::vector<uint64_t> mine;
    for (uint64_t pc : pcs)
      if (pc > m.base && pc - m.base < m.size) mine.push_back(pc);
    if (mine.empty()) continue;
    // A recorded pc is a return address: the call is the byte before it.
    std::string cmd = "addr2line -e '" + m.path + "'";
    for (uint64_t pc : mine) {
      char hex[32];
      std::snprintf(hex, sizeof hex, " 0x%llx", static_cast<unsigned long long>(pc - 1 - m.base + m.file_offset));
      cmd += hex;
    }
    FILE* p = popen(cmd.c_str(), "r");
    if (p == nullptr) continue;
    char line[4096];
    for (uint64_t pc : mine) {
      if (fgets(line, sizeof line, p) == nullptr) break;
      std::string where(line);
      where = where.substr(0, where.find_first_of(" \n"));  // drop " (discriminator N)"
      const size_t slash = where.rfind('/');
      if (slash != std::string::npos) where = where.substr(slash + 1);
      if (where.rfind("??", 0) != 0 && where.find(":?") == std::string::npos) (*out)[pc] = where;
    }
    pclose(p);
  }
  return true;
}

}  // namespace seer::test
