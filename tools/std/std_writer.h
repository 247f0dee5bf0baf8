// A TraceWriter that writes STD text (`thread|op(decor)|loc`) instead of a trace
// file. `seer export` and `seer gen --format std` both write through it, so STD
// text has exactly one formatter.
#pragma once

#include <cstdio>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "seer/trace.h"

namespace seer {

class StdTextWriter final : public TraceWriter {
 public:
  // Writes to `out`, which stays the caller's to close. Text is buffered: call
  // Close() (or Flush()) before closing `out`.
  explicit StdTextWriter(std::FILE* out);

  // Names must be set before the first event that uses the id. Objects without a
  // usable name (none, not a valid STD name, or taken by another id) are written
  // as T<tid>, L<id>, V<id>.
  void SetName(Namespace ns, uint64_t id, const std::string& name) override;
  void AddThread(const ThreadInfo& thread) override { SetName(Namespace::kThread, thread.tid, thread.name); }
  // STD text has no metadata, modules or loss records.
  void SetMeta(const std::string&, const std::string&) override {}
  void AddModule(const ModuleInfo&) override {}
  void AddLost(const std::string&, EventKind, uint64_t count) override { lost_ += count; }

  Status Append(const Event& e) override;
  Status Flush() override;
  Status Close() override { return Flush(); }
  uint64_t events_written() const override { return events_; }

  // Events whose size, mode or mutex the STD line cannot hold (dropped).
  uint64_t lossy_events() const { return lossy_; }
  uint64_t lost_events() const { return lost_; }

 private:
  // The name each id is written with, fixed at its first use.
  class NameTable {
   public:
    explicit NameTable(char prefix) : prefix_(prefix) {}
    void Give(uint64_t id, const std::string& name) { given_[id] = name; }
    const std::string& Resolve(uint64_t id);

   private:
    const std::string& Assign(uint64_t id);
    static constexpr uint64_t kDenseLimit = 1u << 22;
    char prefix_;
    std::vector<std::string> dense_;  // "" = not yet assigned (names are never empty)
    std::unordered_map<uint64_t, std::string> sparse_;
    std::unordered_map<uint64_t, std::string> given_;
    std::unordered_set<std::string> used_;
  };

  std::FILE* out_;
  std::string buf_;
  NameTable threads_{'T'}, locks_{'L'}, variables_{'V'};
  uint64_t events_ = 0;
  uint64_t lossy_ = 0;
  uint64_t lost_ = 0;
};

}  // namespace seer
