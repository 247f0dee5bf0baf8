#include "predictor/seqcheck/atomicity.h"

#include <algorithm>
#include <map>
#include <span>
#include <string>
#include <tuple>
#include <unordered_set>

#include "predictor/seqcheck/grouped.h"
#include "predictor/seqcheck/hard_order.h"
#include "predictor/seqcheck/regions.h"
#include "predictor/seqcheck/witness.h"
#include "predictor/seqcheck/witness_checker.h"

namespace seer::predictor::seqcheck {
namespace {

bool IsWrite(const Node& n) { return (n.flags & kWrites) != 0; }

// The intruding kind that makes (first, second) unserializable: a write between
// two reads, between a write and a read, between a read and a write; a read
// between two writes. `first_writes`, `second_writes`: whether each is a write.
bool IntruderIsWrite(bool first_writes, bool second_writes) { return !(first_writes && second_writes); }

const char* Pattern(const Node& a, const Node& e, const Node& b) {
  static const char* names[8] = {"read-read-read",  "read-read-write",  "read-write-read",  "read-write-write",
                                 "write-read-read", "write-read-write", "write-write-read", "write-write-write"};
  return names[(IsWrite(a) ? 4 : 0) + (IsWrite(e) ? 2 : 0) + (IsWrite(b) ? 1 : 0)];
}

// The locks of e1's thread held from e1 through e2, found once per pair (e1, e2)
// and asked once per intruder candidate: a candidate e whose thread holds one of
// them in a conflicting mode cannot run between e1 and e2. The candidate's locks
// are the sections open at it, looked up per candidate: candidates are few (a
// few thousand in a window of millions of events, max_tries per key), and a
// table of every node's held locks built for them was a twentieth of the
// engine's time.
class ProtectingLocks {
 public:
  explicit ProtectingLocks(const TraceModel& m) : m_(m) {}

  // Starts a new pair; its locks are found at its first Block (most pairs have
  // no intruder candidate left to ask about).
  void Reset(uint32_t e1, uint32_t e2) {
    e1_ = e1;
    e2_ = e2;
    found_ = false;
  }

  bool Block(uint32_t e) {
    if (!found_) FindSpanning();
    if (spanning_.empty()) return false;
    const Node& ne = m_.node(e);
    bool blocks = false;
    m_.ForEachOpenAt(ne.tid, ne.pos, [&](uint32_t a) {
      const Node& na = m_.node(a);
      const bool shared = (na.flags & kShared) != 0;
      for (auto [spanning_lock, spanning_shared] : spanning_)
        if (na.lock == spanning_lock && !(shared && spanning_shared)) blocks = true;
    });
    return blocks;
  }

 private:
  void FindSpanning() {
    const Node &n1 = m_.node(e1_), &n2 = m_.node(e2_);
    spanning_.clear();
    m_.ForEachOpenAt(n1.tid, n1.pos, [&](uint32_t a) {
      const Node& na = m_.node(a);
      if (na.match == kNone || m_.node(na.match).pos > n2.pos)
        spanning_.push_back({na.lock, (na.flags & kShared) != 0});
    });
    found_ = true;
  }

  const TraceModel& m_;
  uint32_t e1_ = kNone, e2_ = kNone;
  bool found_ = false;                               // spanning_ is for (e1_, e2_)
  std::vector<std::pair<uint32_t, bool>> spanning_;  // (lock, read mode)
};

// Decides, for the intruders of one pair (e1, e2) of thread t, whether hard
// orders alone put the intruder between e1 and e2 (e1 -> e -> e2): then every
// schedule interleaves them so, by the program's design (a fork/join or signal
// hand-off), and no schedule runs the accesses without it; not a violation.
// The scans over [e1, e2] run once per pair, and only when t has a hard edge
// out in [e1, e2) and one in within (e1, e2], without which e1 reaches no
// other thread that reaches back.
class ForcedIntruders {
 public:
  explicit ForcedIntruders(const TraceModel& m) : m_(m), reach_(m) {}

  // Starts a new pair; `out` / `in`: thread t's latest position before e2 with
  // a hard edge out (fork, signal) / at or before e2 with one in (wait, join),
  // or kNone.
  // p1: e1's position in t.
  void Reset(uint32_t e1, uint32_t p1, uint32_t e2, uint32_t out, uint32_t in) {
    e1_ = e1;
    e2_ = e2;
    possible_ = out != kNone && out >= p1 && in != kNone && in > p1;
    scanned_ = false;
  }

  bool Forced(uint32_t e) {
    if (!possible_ || e <= e1_ || e >= e2_) return false;  // hard paths stay between their ends in the trace
    if (!scanned_) {
      reach_.ScanFrom(e1_, e2_);
      reach_.ScanTo(e2_, e1_);
      scanned_ = true;
    }
    return reach_.From(e) && reach_.To(e);
  }

 private:
  const TraceModel& m_;
  HardReach reach_;
  uint32_t e1_ = kNone, e2_ = kNone;
  bool possible_ = false, scanned_ = false;
};

// What the scan reads of a node: its flags, the variable it accesses when it
// accesses one (most do; the model's list when several), and what Regions
// asks of lock and scope nodes.
struct ScanNode {
  uint32_t var;   // kNone: none, or several
  uint32_t lock;  // an acquire's or release's
  uint16_t flags;
  EventKind kind;  // a lock or scope node's (Regions::Step)
  bool several;    // TraceModel::accesses lists them
};

}  // namespace

std::vector<AtomicityViolation> PredictAtomicityViolations(const TraceModel& m, const AtomicityOptions& options,
                                                           SeqCheckStats* stats,
                                                           std::vector<AtomicityViolation>* candidates) {
  std::vector<AtomicityViolation> found;

  FeasibilityChecker feasibility(m, options.feasibility);
  LazyWitnessChecker checker(m.events(), m.carried());
  const uint64_t distance = options.intruder_distance ? options.intruder_distance : options.window;

  // Accesses (nodes) per variable in trace order, split by kind (a range is an
  // access of each variable it covers; a free, a write of each of its block's).
  // And what the scan reads of each node, copied in each thread's program
  // order: the scan walks one thread at a time, and over the model's arrays,
  // laid out in trace order, it fetched a cache line of each per node, every
  // line once per thread (with 8 threads, a fifth of the engine's time).
  Grouped<uint32_t> reads(m.variables()), writes(m.variables());
  Grouped<ScanNode> scan_nodes(m.threads());
  for (uint32_t t = 0; t < m.threads(); ++t) scan_nodes.Count(t, m.thread_length(t));
  for (uint32_t i = 0; i < m.size(); ++i)
    for (const Access& a : m.accesses(i)) (IsWrite(m.node(i)) ? writes : reads).Count(a.var);
  reads.Place();
  writes.Place();
  scan_nodes.Place();
  for (uint32_t i = 0; i < m.size(); ++i) {
    const Node& n = m.node(i);
    const auto vars = m.accesses(i);
    // The events are read only where Regions needs the kind: mostly they are
    // not (accesses), and each is 40 bytes.
    const EventKind kind = n.flags & (kAcquires | kReleases | kScopes) ? m.event(i).kind : EventKind::kRead;
    scan_nodes.Add(n.tid, {vars.size() == 1 ? vars[0].var : kNone, n.lock, n.flags, kind, vars.size() > 1});
    for (const Access& a : vars) (IsWrite(n) ? writes : reads).Add(a.var, i);
  }
  // (pattern, pc1, pc, pc2) -> checks tried; a reported key is not tried again.
  using TryKey = std::tuple<const char*, uint64_t, uint64_t, uint64_t>;
  std::map<TryKey, uint32_t> tries;
  // Keys checked infeasible, each with its first instance, until reported.
  std::map<TryKey, size_t> unrealised;
  std::vector<AtomicityViolation> unrealised_list;
  TryKey last_key;
  uint32_t* last_tried = nullptr;

  ForcedIntruders forced(m);
  ProtectingLocks protecting(m);
  Regions regions(m);
  // Whether hard orders put e after e2 or before e1 (a hard path stays between
  // its ends in the trace): asked once per new candidate key.
  HardReach outside(m);
  auto hard_outside = [&](uint32_t e1, uint32_t e, uint32_t e2) {
    if (e > e2) {
      outside.ScanFrom(e2, e);
      return outside.From(e);
    }
    if (e < e1) {
      outside.ScanTo(e1, e);
      return outside.To(e);
    }
    return false;
  };
  // Per variable, the previous access of the thread being scanned (valid when
  // `thread` says it is that thread's): a vector, not a hash map per thread,
  // since every access looks its variable up. With it what a pair asks of it
  // first (window, kind, region), copied while it was the scan's e2, at hand:
  // as e1 it lies up to thousands of events back, and its node and region
  // entry missed the cache at every pair.
  struct Previous {
    uint32_t node = kNone, thread = kNone;
    uint32_t pos = 0;
    bool writes = false;
    Regions::Marks region;
  };
  std::vector<Previous> last(m.variables());
  for (uint32_t t = 0; t < m.threads() && !options.Stop(*stats); ++t) {
    uint32_t hard_out = kNone, hard_in = kNone;  // latest positions with hard edges out / in
    // A range's variables mostly pair it with the same earlier access and the
    // same intruders: each (e1, e) is decided once per e2.
    std::unordered_set<uint64_t> decided;
    const std::vector<uint32_t>& thread_nodes = m.thread_nodes(t);
    const std::span<const ScanNode> nodes = scan_nodes.Of(t);
    if (options.regions) regions.Start(t);
    for (uint32_t k = 0; k < nodes.size(); ++k) {
      const uint32_t e2 = thread_nodes[k];
      const uint16_t flags = nodes[k].flags;
      const Regions::Marks marks =
          options.regions ? regions.Step(k, flags, nodes[k].kind, nodes[k].lock) : Regions::Marks{};
      const Access one{nodes[k].var, kNone};
      const std::span<const Access> vars =
          nodes[k].several ? m.accesses(e2) : std::span<const Access>(&one, one.var == kNone ? 0 : 1);
      const uint32_t out_before = hard_out;
      if (flags & (kForks | kSignals)) hard_out = k;
      if (flags & (kWaits | kJoins)) hard_in = k;
      if (vars.empty()) continue;
      decided.clear();
      const bool writes2 = (flags & kWrites) != 0;
      const Previous now{e2, t, k, writes2, marks};
      uint32_t reset_for = kNone;  // the e1 that `forced`, `protecting` and `one_region` are set up for
      bool one_region = true;
      for (const Access& a2 : vars) {
        const uint32_t var = a2.var;
        const Previous before = last[var];
        last[var] = now;
        const uint32_t e1 = before.thread == t ? before.node : kNone;
        if (e1 == kNone || k - before.pos - 1 > options.window) continue;
        if (reset_for != e1) {
          forced.Reset(e1, before.pos, e2, out_before, hard_in);
          protecting.Reset(e1, e2);
          reset_for = e1;
          one_region = !options.regions || regions.OneRegion(e1, before.pos, before.region, e2, k, now.region);
          if (!one_region) ++stats->outside_region;
        }
        if (!one_region) continue;
        const Node& n1 = m.node(e1);
        const Node& n2 = m.node(e2);
        const std::span<const uint32_t> pool = (IntruderIsWrite(before.writes, writes2) ? writes : reads).Of(var);
        const uint32_t from = e1 > distance ? static_cast<uint32_t>(e1 - distance) : 0;
        const uint64_t to = e2 + distance;
        for (auto jt = std::lower_bound(pool.begin(), pool.end(), from); jt != pool.end() && *jt <= to; ++jt) {
          if (options.Stop(*stats)) break;
          const uint32_t e = *jt;
          const Node& ne = m.node(e);
          if (ne.tid == t) continue;
          if (vars.size() > 1 && !decided.insert((uint64_t{e1} << 32) | e).second) continue;
          const char* pattern = Pattern(n1, ne, n2);
          const TryKey key = std::make_tuple(pattern, m.event(e1).pc, m.event(e).pc, m.event(e2).pc);
          // Candidates in a row mostly share their key (one loop's accesses):
          // the last one's entry is reused without a lookup (map entries stay put).
          if (last_tried == nullptr || key != last_key) {
            last_key = key;
            last_tried = &tries[key];
          }
          uint32_t& tried = *last_tried;
          if (tried >= options.max_tries) continue;
          ++stats->candidates;
          if (protecting.Block(e)) {
            ++stats->filtered;
            continue;
          }
          if (options.drop_forced && forced.Forced(e)) {
            // An instance decided, as an infeasible check is: it takes one of the
            // key's tries, which bounds the scans of a hand-off repeated in a loop.
            ++tried;
            ++stats->filtered;
            ++stats->forced;
            continue;
          }
          ++tried;
          Query q;
          q.threads.push_back({t, k + 1, true, false});
          q.threads.push_back({ne.tid, ne.pos + 1, false, false});  // may go on to release its locks
          q.order = {{e1, e}, {e, e2}};
          FeasibilityResult r = TimedCheck(&feasibility, q, stats);
          AtomicityViolation v;
          v.engine = "atomicity";
          v.pattern = pattern;
          v.local_first = EventRef::Of(m.event(e1));
          v.remote = EventRef::Of(m.event(e));
          v.local_second = EventRef::Of(m.event(e2));
          if (!r.feasible) {
            // Infeasible, not undecided: no sound reordering of this run has it.
            // A candidate still, unless hard orders keep e out of [e1, e2] in
            // every run (main's read after it joined the thread).
            if (candidates != nullptr && !r.undecided && unrealised.count(key) == 0 && !hard_outside(e1, e, e2)) {
              unrealised.emplace(key, unrealised_list.size());
              unrealised_list.push_back(std::move(v));
            }
            continue;
          }
          v.witness = MakeWitness(m, r);
          const std::string what = std::string("a ") + pattern + " atomicity violation at events " +
                                   std::to_string(v.local_first.index) + ", " + std::to_string(v.remote.index) + ", " +
                                   std::to_string(v.local_second.index);
          if (!AcceptWitness(checker.Get().CheckAtomicity(v), what, &v.witness, stats)) continue;
          found.push_back(std::move(v));
          unrealised.erase(key);
          tried = options.max_tries;  // reported: no more instances of this key
        }
      }
    }
  }
  if (candidates != nullptr) {
    std::vector<size_t> kept;
    for (const auto& [key, index] : unrealised) kept.push_back(index);
    std::sort(kept.begin(), kept.end());
    for (size_t i : kept) candidates->push_back(std::move(unrealised_list[i]));
  }
  return found;
}

}  // namespace seer::predictor::seqcheck
