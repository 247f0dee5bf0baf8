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

namespace seer::interop {

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
  // In an addressed trace (recorded: variable ids are byte addresses) a variable
  // whose id import would not give it is written with its id at first use
  // (`at=`), so that import restores which accesses overlap. Off by default:
  // generated traces have one-byte variables whose ids do not matter, and plain
  // RAPID lines keep them.
  void SetAddressed(bool addressed) { addressed_ = addressed; }
  // STD text has no metadata, modules or loss records.
  void SetMeta(const std::string&, const std::string&) override {}
  void AddModule(const ModuleInfo&) override {}
  void AddLost(const std::string&, EventKind, uint64_t count) override { lost_ += count; }
  void AddClockSample(uint64_t) override {}  // STD text has no times

  Status Append(const Event& e) override;
  Status Flush() override;
  Status Close() override { return Flush(); }
  uint64_t events_written() const override { return events_; }

  // Accesses of other than one byte in a trace that is not addressed: the size is
  // written, but import gives variables dense ids, so overlaps are not restored.
  uint64_t lossy_events() const { return lossy_; }
  uint64_t lost_events() const { return lost_; }
  // Lines RAPID cannot read: seer-only kinds, or attributes after a name.
  uint64_t non_rapid_lines() const { return non_rapid_; }
  // Trylock and timed acquires: written as plain `acq` lines (RAPID's STD has no
  // trylock, and a recorded trace's acquires stay readable by RAPID), so import
  // reads them back as blocking acquires.
  uint64_t nonblocking_acquires() const { return nonblocking_; }

 private:
  // The name each id is written with, fixed at its first use.
  class NameTable {
   public:
    explicit NameTable(char prefix) : prefix_(prefix) {}
    void Give(uint64_t id, const std::string& name) { given_[id] = name; }
    // `fresh`, if set, says whether this is the id's first use.
    const std::string& Resolve(uint64_t id, bool* fresh = nullptr);

   private:
    const std::string& Assign(uint64_t id);
    static constexpr uint64_t kDenseLimit = 1u << 22;
    char prefix_;
    std::vector<std::string> dense_;  // "" = not yet assigned (names are never empty)
    std::unordered_map<uint64_t, std::string> sparse_;
    std::unordered_map<uint64_t, std::string> given_;
    std::unordered_set<std::string> used_;
  };

  void AppendVariableAttributes(const Event& e, bool fresh);
  void AppendLockAttributes(const Event& e);

  std::FILE* out_;
  std::string buf_;
  NameTable threads_{'T'}, locks_{'L'}, variables_{'V'};
  bool addressed_ = false;
  uint64_t next_dense_id_ = 0;           // as the importer counts
  std::unordered_set<uint64_t> at_ids_;  // ids written with `at=`
  uint64_t events_ = 0;
  uint64_t lossy_ = 0;
  uint64_t non_rapid_ = 0;
  uint64_t nonblocking_ = 0;
  uint64_t lost_ = 0;
};

}  // namespace seer::interop
