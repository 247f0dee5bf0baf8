#include "tests/oracle/oracle.h"

#include <algorithm>
#include <map>
#include <string>
#include <unordered_set>

#include "predictor/common/sync_ops.h"

namespace seer::test {
namespace {

// One step of a thread after lowering: an event lowers to zero or more steps
// (an atomic access to three), and a reordering interleaves steps.
struct Step {
  uint32_t tid = 0;
  predictor::SyncOp op = predictor::SyncOp::kRead;
  bool branch = false;  // a kBranch event (lowers to nothing for the engines)
  uint64_t object = 0;
  bool atomic = false;
  bool shared = false;
  bool nonblocking = false;  // a trylock or timed acquire: fails or times out instead of blocking
  uint64_t event = 0;        // trace position of the event it comes from
  uint64_t pc = 0;
  std::vector<int> cells;  // accessed (byte, generation) cells
  std::vector<int>
      read_from;  // a read (kRead, or an atomic RMW's kWrite): per cell, the step of the trace's last write, or -1
  std::vector<int> needs;  // per thread: steps of that thread that must precede this one
  int read_slot = -1;      // a read: index of its bit "saw its trace writes"; -1 for the rest
};

struct Held {
  uint64_t lock;
  bool shared;
};

// The trace lowered to per-thread step sequences, with everything a state needs.
class Model {
 public:
  Model(const std::vector<Event>& trace, ReadRule rule) {
    uint32_t threads = 0;
    for (const Event& e : trace) threads = std::max(threads, e.tid + 1);
    for (const Event& e : trace) {
      if (e.kind == EventKind::kFork || e.kind == EventKind::kJoin)
        threads = std::max(threads, static_cast<uint32_t>(e.object) + 1);
      if (e.kind == EventKind::kBranch) has_branches_ = true;
    }
    every_read_ = rule == ReadRule::kEveryRead || (rule == ReadRule::kAuto && !has_branches_);
    by_thread_.resize(threads);
    Lower(trace, threads);
    ComputeHeld();
  }

  uint32_t threads() const { return static_cast<uint32_t>(by_thread_.size()); }
  bool every_read() const { return every_read_; }
  size_t cells() const { return cell_count_; }
  int read_slots() const { return read_slots_; }
  const Step& step(int s) const { return steps_[s]; }
  // The step thread t runs after its first `prefix` steps, or -1 when it is done.
  int Next(uint32_t t, int prefix) const {
    return prefix < static_cast<int>(by_thread_[t].size()) ? by_thread_[t][prefix] : -1;
  }
  const std::vector<int>& thread_steps(uint32_t t) const { return by_thread_[t]; }
  // Locks thread t holds (outermost acquisitions) after its first `prefix` steps.
  const std::vector<Held>& HeldAfter(uint32_t t, int prefix) const { return held_[t][prefix]; }

 private:
  int Cell(uint64_t byte, int generation) {
    auto [it, fresh] = cell_ids_.emplace(std::make_pair(byte, generation), static_cast<int>(cell_count_));
    if (fresh) ++cell_count_;
    return it->second;
  }

  void Lower(const std::vector<Event>& trace, uint32_t threads) {
    std::map<uint64_t, int> generation;                      // byte -> generation (alloc)
    std::map<int, int> last_write;                           // cell -> step
    std::map<uint32_t, std::pair<uint32_t, int>> forked_by;  // child -> (parent, steps to wait for)
    std::map<uint64_t, std::vector<int>> signals;            // sync object -> signal steps so far
    std::vector<std::pair<int, uint32_t>> joins;             // (step, joined thread)
    predictor::EventLowering lowering;                       // a free writes its allocated bytes (as in the engines)
    for (const Event& e : trace) {
      auto add = [&](Step s) {
        s.tid = e.tid;
        s.event = e.index;
        s.pc = e.pc;
        s.needs.assign(threads, 0);
        if (by_thread_[e.tid].empty()) {
          auto it = forked_by.find(e.tid);
          if (it != forked_by.end()) s.needs[it->second.first] = it->second.second;
        }
        const int id = static_cast<int>(steps_.size());
        by_thread_[e.tid].push_back(id);
        steps_.push_back(std::move(s));
        return id;
      };
      if (e.kind == EventKind::kBranch) {
        Step s;
        s.branch = true;
        add(std::move(s));
        continue;
      }
      lowering.Lower(e, [&](const predictor::LoweredOp& op) {
        Step s;
        s.op = op.op;
        s.object = op.object;
        s.atomic = op.atomic;
        s.shared = op.shared;
        s.nonblocking = op.op == predictor::SyncOp::kAcquire && IsNonBlockingAcquire(e);
        const uint64_t bytes = std::max<uint64_t>(1, op.size);
        if (op.op == predictor::SyncOp::kFresh) {
          for (uint64_t b = op.object; b < op.object + bytes; ++b) ++generation[b];
          add(std::move(s));
          return;
        }
        // A free is a write of every byte of its block, by definition.
        if (op.op == predictor::SyncOp::kFree) s.op = predictor::SyncOp::kWrite;
        if (s.op == predictor::SyncOp::kRead || s.op == predictor::SyncOp::kWrite) {
          for (uint64_t b = op.object; b < op.object + bytes; ++b) s.cells.push_back(Cell(b, generation[b]));
          // An atomic read-modify-write reads too: it keeps the writer it read from.
          if (s.op == predictor::SyncOp::kRead || e.kind == EventKind::kAtomicRmw) {
            for (int c : s.cells) {
              auto it = last_write.find(c);
              s.read_from.push_back(it == last_write.end() ? -1 : it->second);
            }
            s.read_slot = read_slots_++;
          }
        }
        const int id = add(std::move(s));
        Step& added = steps_[id];
        if (op.op == predictor::SyncOp::kWait) {
          // Every signal before the wait in the trace precedes it: the engines join
          // the object's accumulated clock, so the oracle may not be weaker.
          for (int sig : signals[op.object]) {
            const Step& g = steps_[sig];
            const auto& seq = by_thread_[g.tid];
            const int pos = static_cast<int>(std::find(seq.begin(), seq.end(), sig) - seq.begin());
            added.needs[g.tid] = std::max(added.needs[g.tid], pos + 1);
          }
        }
        if (op.op == predictor::SyncOp::kSignal) signals[op.object].push_back(id);
        if (op.op == predictor::SyncOp::kEndSignals) signals[op.object].clear();
        if (added.op == predictor::SyncOp::kWrite)
          for (int c : added.cells) last_write[c] = id;
        if (op.op == predictor::SyncOp::kFork)
          forked_by[static_cast<uint32_t>(op.object)] = {e.tid, static_cast<int>(by_thread_[e.tid].size())};
        if (op.op == predictor::SyncOp::kJoin) joins.push_back({id, static_cast<uint32_t>(op.object)});
      });
    }
    // A join waits for the joined thread's whole sequence.
    for (auto [id, child] : joins)
      if (child < threads && child != steps_[id].tid)
        steps_[id].needs[child] = static_cast<int>(by_thread_[child].size());
  }

  void ComputeHeld() {
    held_.resize(by_thread_.size());
    for (uint32_t t = 0; t < by_thread_.size(); ++t) {
      std::map<uint64_t, std::pair<int, bool>> depth;  // lock -> (nesting, shared)
      auto snapshot = [&] {
        std::vector<Held> h;
        for (auto& [lock, d] : depth)
          if (d.first > 0) h.push_back({lock, d.second});
        held_[t].push_back(std::move(h));
      };
      snapshot();
      for (int id : by_thread_[t]) {
        const Step& s = steps_[id];
        if (s.op == predictor::SyncOp::kAcquire && !s.branch) {
          auto& d = depth[s.object];
          if (d.first++ == 0) d.second = s.shared;
        } else if (s.op == predictor::SyncOp::kRelease && !s.branch) {
          auto& d = depth[s.object];
          if (d.first > 0) --d.first;
        }
        snapshot();
      }
    }
  }

  bool has_branches_ = false;
  bool every_read_ = true;
  std::vector<Step> steps_;
  std::vector<std::vector<int>> by_thread_;
  std::vector<std::vector<std::vector<Held>>> held_;
  std::map<std::pair<uint64_t, int>, int> cell_ids_;
  size_t cell_count_ = 0;
  int read_slots_ = 0;
};

// A point of a reordering: how far each thread got, the last write of each
// cell, and for each read run so far whether it saw its trace writes.
struct State {
  std::vector<int> prefix;
  std::vector<int> last_write;  // per cell: step, or -1
  std::vector<char> saw_trace_write;

  std::string Key() const {
    std::string k;
    k.reserve((prefix.size() + last_write.size()) * 2 + saw_trace_write.size());
    for (int v : prefix) k.append(reinterpret_cast<const char*>(&v), 2);
    for (int v : last_write) k.append(reinterpret_cast<const char*>(&v), 2);
    k.append(saw_trace_write.begin(), saw_trace_write.end());
    return k;
  }
};

class Explorer {
 public:
  Explorer(const Model& m, const OracleOptions& o) : m_(m), o_(o) {}

  OracleResult Run() {
    State s;
    s.prefix.assign(m_.threads(), 0);
    s.last_write.assign(m_.cells(), -1);
    s.saw_trace_write.assign(m_.read_slots(), 1);
    Visit(s);
    result_.states = visited_.size();
    for (auto [a, b] : result_.races) result_.race_pcs.insert(PcPair(a, b));
    for (auto [a, b] : result_.adjacent_races) result_.adjacent_race_pcs.insert(PcPair(a, b));
    return std::move(result_);
  }

 private:
  std::pair<uint64_t, uint64_t> PcPair(uint64_t a, uint64_t b) const {
    uint64_t pa = pc_of_event_.at(a), pb = pc_of_event_.at(b);
    return {std::min(pa, pb), std::max(pa, pb)};
  }

  bool NeedsMet(const Step& st, const State& s) const {
    for (uint32_t u = 0; u < st.needs.size(); ++u)
      if (s.prefix[u] < st.needs[u]) return false;
    return true;
  }
  bool SeesTraceWrites(const Step& st, const State& s) const {
    for (size_t i = 0; i < st.cells.size(); ++i)
      if (s.last_write[st.cells[i]] != st.read_from[i]) return false;
    return true;
  }
  // Threads other than t that hold `lock` in a mode that excludes `shared`.
  std::vector<uint32_t> Blockers(uint32_t t, uint64_t lock, bool shared, const State& s) const {
    std::vector<uint32_t> out;
    for (uint32_t u = 0; u < m_.threads(); ++u) {
      if (u == t) continue;
      for (const Held& h : m_.HeldAfter(u, s.prefix[u]))
        if (h.lock == lock && !(h.shared && shared)) out.push_back(u);
    }
    return out;
  }
  // Can step `id` run now? `strict_reads`: a read must see its trace writes.
  bool CanRun(int id, const State& s, bool strict_reads) const {
    const Step& st = m_.step(id);
    if (!NeedsMet(st, s)) return false;
    if (st.branch) {
      if (m_.every_read()) return true;
      for (int prev : m_.thread_steps(st.tid)) {
        if (prev == id) break;
        const Step& p = m_.step(prev);
        if (p.read_slot >= 0 && !s.saw_trace_write[p.read_slot]) return false;
      }
      return true;
    }
    switch (st.op) {
      case predictor::SyncOp::kAcquire: return Blockers(st.tid, st.object, st.shared, s).empty();
      case predictor::SyncOp::kRead:
      case predictor::SyncOp::kWrite: return st.read_slot < 0 || !strict_reads || SeesTraceWrites(st, s);
      default: return true;
    }
  }
  State Apply(int id, const State& s) const {
    State n = s;
    const Step& st = m_.step(id);
    ++n.prefix[st.tid];
    if (!st.branch && st.read_slot >= 0) n.saw_trace_write[st.read_slot] = SeesTraceWrites(st, s);
    if (!st.branch && st.op == predictor::SyncOp::kWrite)
      for (int c : st.cells) n.last_write[c] = id;
    return n;
  }

  static bool IsAccess(const Step& st) {
    return !st.branch && (st.op == predictor::SyncOp::kRead || st.op == predictor::SyncOp::kWrite);
  }
  static bool Conflict(const Step& a, const Step& b) {
    if (a.tid == b.tid || (a.atomic && b.atomic)) return false;
    if (a.op != predictor::SyncOp::kWrite && b.op != predictor::SyncOp::kWrite) return false;
    for (int c : a.cells)
      if (std::find(b.cells.begin(), b.cells.end(), c) != b.cells.end()) return true;
    return false;
  }

  void RecordRaces(const State& s) {
    for (uint32_t t = 0; t < m_.threads(); ++t) {
      const int a = m_.Next(t, s.prefix[t]);
      if (a < 0 || !IsAccess(m_.step(a)) || !NeedsMet(m_.step(a), s)) continue;
      for (uint32_t u = t + 1; u < m_.threads(); ++u) {
        const int b = m_.Next(u, s.prefix[u]);
        if (b < 0 || !IsAccess(m_.step(b)) || !NeedsMet(m_.step(b), s)) continue;
        const Step &sa = m_.step(a), &sb = m_.step(b);
        if (!Conflict(sa, sb)) continue;
        const auto pair = std::minmax(sa.event, sb.event);
        pc_of_event_[sa.event] = sa.pc;
        pc_of_event_[sb.event] = sb.pc;
        result_.races.insert(pair);
        const bool ab = CanRun(a, s, true) && CanRun(b, Apply(a, s), true);
        const bool ba = CanRun(b, s, true) && CanRun(a, Apply(b, s), true);
        if (ab || ba) result_.adjacent_races.insert(pair);
      }
    }
  }

  void RecordDeadlocks(const State& s) {
    // waits_for[t]: threads holding the lock t's next acquire needs.
    std::vector<std::vector<uint32_t>> waits_for(m_.threads());
    std::vector<int> blocked(m_.threads(), -1);
    for (uint32_t t = 0; t < m_.threads(); ++t) {
      const int a = m_.Next(t, s.prefix[t]);
      if (a < 0) continue;
      const Step& st = m_.step(a);
      // A trylock or timed lock facing a holder returns (EBUSY, ETIMEDOUT): not blocked.
      if (st.branch || st.op != predictor::SyncOp::kAcquire || st.nonblocking || !NeedsMet(st, s)) continue;
      waits_for[t] = Blockers(t, st.object, st.shared, s);
      if (!waits_for[t].empty()) blocked[t] = a;
    }
    std::vector<uint32_t> path;
    for (uint32_t start = 0; start < m_.threads(); ++start)
      if (blocked[start] >= 0) FindCycles(start, start, waits_for, blocked, &path);
  }
  void FindCycles(uint32_t start, uint32_t t, const std::vector<std::vector<uint32_t>>& waits_for,
                  const std::vector<int>& blocked, std::vector<uint32_t>* path) {
    path->push_back(t);
    for (uint32_t u : waits_for[t]) {
      if (u == start && path->size() >= 2) {
        DeadlockCycle cycle;
        for (uint32_t v : *path) cycle.push_back(m_.step(blocked[v]).event);
        std::sort(cycle.begin(), cycle.end());
        result_.deadlocks.insert(cycle);
      } else if (blocked[u] >= 0 && std::find(path->begin(), path->end(), u) == path->end()) {
        FindCycles(start, u, waits_for, blocked, path);
      }
    }
    path->pop_back();
  }

  void Visit(const State& s) {
    if (visited_.size() >= o_.max_states) {
      result_.truncated = true;
      return;
    }
    if (!visited_.insert(s.Key()).second) return;
    RecordRaces(s);
    RecordDeadlocks(s);
    for (uint32_t t = 0; t < m_.threads(); ++t) {
      const int id = m_.Next(t, s.prefix[t]);
      if (id >= 0 && CanRun(id, s, m_.every_read())) Visit(Apply(id, s));
    }
  }

  const Model& m_;
  const OracleOptions& o_;
  OracleResult result_;
  std::unordered_set<std::string> visited_;
  std::map<uint64_t, uint64_t> pc_of_event_;
};

}  // namespace

OracleResult RunOracle(const std::vector<Event>& trace, const OracleOptions& options) {
  Model model(trace, options.read_rule);
  return Explorer(model, options).Run();
}

}  // namespace seer::test
