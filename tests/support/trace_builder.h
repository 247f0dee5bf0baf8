// Builds small in-memory traces for engine tests, either call by call or from
// STD-like lines ("T1|acq(l)|3"; "T1|acq(l how=try)|3" for a trylock, `how=timed`
// for a timed lock, `mode=shared` for a read lock). Names map to dense ids in
// order of first use, as the STD importer does, so examples read like the
// papers' figures.
#pragma once

#include <cstdint>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "seer/event.h"
#include "seer/trace.h"

namespace seer::test {

// One event with raw ids (index and the unnamed fields 0), for tests that feed
// writers, filters and mergers event by event; TraceBuilder below names
// threads, variables and locks instead.
inline Event MakeEvent(uint32_t tid, EventKind kind, uint64_t object, uint64_t pc = 0, uint64_t aux = 0,
                       uint8_t mode = 0) {
  Event e;
  e.tid = tid;
  e.kind = kind;
  e.object = object;
  e.pc = pc;
  e.aux = aux;
  e.mode = mode;
  return e;
}

class TraceBuilder {
 public:
  TraceBuilder& Add(const std::string& thread, EventKind kind, uint64_t object, uint64_t pc, uint64_t aux = 0,
                    uint8_t mode = 0) {
    Event e = MakeEvent(Thread(thread), kind, object, pc, aux, mode);
    e.index = events_.size();
    events_.push_back(e);
    return *this;
  }
  TraceBuilder& Read(const std::string& t, const std::string& var, uint64_t pc) {
    return Add(t, EventKind::kRead, Id(variables_, var), pc, 1);
  }
  TraceBuilder& Write(const std::string& t, const std::string& var, uint64_t pc) {
    return Add(t, EventKind::kWrite, Id(variables_, var), pc, 1);
  }
  TraceBuilder& Acquire(const std::string& t, const std::string& lock, uint64_t pc, LockMode m = LockMode::kExclusive,
                        AcquireHow how = AcquireHow::kBlocking) {
    return Add(t, EventKind::kAcquire, Id(locks_, lock), pc, static_cast<uint64_t>(how), static_cast<uint8_t>(m));
  }
  // A trylock (or, with `how`, a timed lock) that got `lock`.
  TraceBuilder& TryAcquire(const std::string& t, const std::string& lock, uint64_t pc,
                           AcquireHow how = AcquireHow::kTry, LockMode m = LockMode::kExclusive) {
    return Acquire(t, lock, pc, m, how);
  }
  TraceBuilder& Release(const std::string& t, const std::string& lock, uint64_t pc, LockMode m = LockMode::kExclusive) {
    return Add(t, EventKind::kRelease, Id(locks_, lock), pc, 0, static_cast<uint8_t>(m));
  }
  TraceBuilder& Fork(const std::string& t, const std::string& child, uint64_t pc) {
    return Add(t, EventKind::kFork, Thread(child), pc);
  }
  TraceBuilder& Join(const std::string& t, const std::string& child, uint64_t pc) {
    return Add(t, EventKind::kJoin, Thread(child), pc);
  }

  // Lines of `thread|op(arg)|loc` with ops r w acq rel fork join begin end, and
  // func_entry / func_exit (the function's address left 0);
  // throws std::invalid_argument on a malformed line (tests only).
  TraceBuilder& Std(const std::vector<std::string>& lines) {
    for (const auto& line : lines) {
      size_t a = line.find('|'), b = line.rfind('|');
      if (a == std::string::npos || a == b) throw std::invalid_argument("bad line: " + line);
      std::string t = line.substr(0, a), op = line.substr(a + 1, b - a - 1);
      uint64_t pc = std::stoull(line.substr(b + 1));
      size_t p = op.find('(');
      std::string name = op.substr(0, p);
      std::string arg = p == std::string::npos ? "" : op.substr(p + 1, op.size() - p - 2);
      // Lock attributes after the name: how=try|timed, mode=shared.
      LockMode mode = LockMode::kExclusive;
      AcquireHow how = AcquireHow::kBlocking;
      for (size_t sp = arg.rfind(' '); sp != std::string::npos; sp = arg.rfind(' ')) {
        const std::string attr = arg.substr(sp + 1);
        arg.resize(sp);
        if (attr == "how=try")
          how = AcquireHow::kTry;
        else if (attr == "how=timed")
          how = AcquireHow::kTimed;
        else if (attr == "mode=shared")
          mode = LockMode::kShared;
        else
          throw std::invalid_argument("bad attribute: " + line);
      }
      if (how != AcquireHow::kBlocking && name != "acq") throw std::invalid_argument("how= on a non-acquire: " + line);
      if (mode != LockMode::kExclusive && name != "acq" && name != "rel")
        throw std::invalid_argument("mode= on a non-lock op: " + line);
      if (name == "r")
        Read(t, arg, pc);
      else if (name == "w")
        Write(t, arg, pc);
      else if (name == "acq")
        Acquire(t, arg, pc, mode, how);
      else if (name == "rel")
        Release(t, arg, pc, mode);
      else if (name == "fork")
        Fork(t, arg, pc);
      else if (name == "join")
        Join(t, arg, pc);
      else if (name == "begin")
        Add(t, EventKind::kAtomicBegin, 0, pc);
      else if (name == "end")
        Add(t, EventKind::kAtomicEnd, 0, pc);
      else if (name == "func_entry")
        Add(t, EventKind::kFuncEntry, 0, pc);
      else if (name == "func_exit")
        Add(t, EventKind::kFuncExit, 0, pc);
      else
        throw std::invalid_argument("bad op: " + line);
    }
    return *this;
  }

  const std::vector<Event>& events() const { return events_; }
  uint32_t thread_count() const { return static_cast<uint32_t>(threads_.size()); }
  uint32_t Thread(const std::string& name) { return static_cast<uint32_t>(Id(threads_, name)); }
  uint64_t Variable(const std::string& name) { return Id(variables_, name); }
  uint64_t Lock(const std::string& name) { return Id(locks_, name); }

  // A TraceInfo with the thread table and counters filled in, for Engine::Begin.
  TraceInfo Info() const {
    TraceInfo info;
    for (const auto& [name, id] : threads_) info.threads.push_back({static_cast<uint32_t>(id), -1, -1, name});
    info.counters.events = events_.size();
    info.counters.distinct_threads = threads_.size();
    for (const auto& e : events_) ++info.counters.by_kind[static_cast<int>(e.kind)];
    info.complete = true;
    return info;
  }

 private:
  static uint64_t Id(std::map<std::string, uint64_t>& ids, const std::string& name) {
    auto it = ids.find(name);
    if (it != ids.end()) return it->second;
    uint64_t id = ids.size();
    ids.emplace(name, id);
    return id;
  }

  std::vector<Event> events_;
  std::map<std::string, uint64_t> threads_, variables_, locks_;
};

}  // namespace seer::test
