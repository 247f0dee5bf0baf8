// The scheduler commits each thread to one block at a time (its acquires, its
// accesses, its releases) and emits events of a randomly picked thread that can
// run: a thread whose next event acquires a lock held elsewhere waits. The event
// budget is planned ahead (pending events + the final joins), so the trace ends
// with every lock released and exactly `events` events.
#include "gen/generator.h"

#include <algorithm>
#include <string>
#include <vector>

namespace seer::gen {
namespace {

// xoshiro256**: fast, and its output is fixed by its definition (unlike the
// std:: distributions), so a seed means the same trace everywhere.
class Rng {
 public:
  explicit Rng(uint64_t seed) {
    for (auto& s : s_) s = SplitMix(&seed);
  }
  uint64_t Next() {
    const uint64_t result = Rotl(s_[1] * 5, 7) * 9;
    const uint64_t t = s_[1] << 17;
    s_[2] ^= s_[0];
    s_[3] ^= s_[1];
    s_[1] ^= s_[2];
    s_[0] ^= s_[3];
    s_[2] ^= t;
    s_[3] = Rotl(s_[3], 45);
    return result;
  }
  // Uniform in [0, n), n > 0.
  uint64_t Below(uint64_t n) { return static_cast<uint64_t>((static_cast<__uint128_t>(Next()) * n) >> 64); }
  // Uniform in [0, 1).
  double Unit() { return static_cast<double>(Next() >> 11) * 0x1.0p-53; }

 private:
  static uint64_t Rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
  static uint64_t SplitMix(uint64_t* x) {
    uint64_t z = (*x += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  uint64_t s_[4];
};

struct Step {
  EventKind kind;
  uint64_t object;
  uint64_t pc;
};

struct ThreadState {
  bool started = false;
  std::vector<Step> pending;  // the rest of the current block
  size_t head = 0;
  bool idle() const { return head == pending.size(); }
};

struct Site {
  uint64_t variable;
  EventKind kind;
};

class Generator {
 public:
  Generator(const GenOptions& o, TraceWriter* w)
      : o_(o), w_(w), rng_(o.seed), threads_(o.threads), holder_(o.locks, -1) {}

  Status Run(const std::function<void(uint64_t)>& progress) {
    w_->SetMeta(meta::kSource, "gen");
    w_->SetMeta(meta::kPcKind, "location");
    w_->SetMeta("gen_options", Describe());
    for (uint32_t t = 0; t < o_.threads; ++t) w_->AddThread({t, -1, t == 0 ? -1 : 0, "T" + std::to_string(t)});
    MakeSites();

    const uint64_t pc_fork = o_.locations + 2ull * o_.locks;
    threads_[0].started = true;
    for (uint32_t t = 1; t < o_.threads; ++t) threads_[0].pending.push_back({EventKind::kFork, t, pc_fork});
    committed_ = o_.threads - 1;
    joins_left_ = o_.threads - 1;

    while (true) {
      int64_t t = PickRunnable();
      if (t < 0) {
        if (committed_ > 0) return Status::Internal("generator: no thread can run, yet events are pending");
        break;  // nothing pending and no budget left
      }
      ThreadState& ts = threads_[t];
      if (ts.idle()) {
        StartBlock(&ts);
        continue;  // its first event may have to wait
      }
      Status s = Emit(static_cast<uint32_t>(t), ts.pending[ts.head++]);
      if (!s.ok()) return s;
      --committed_;
      if (ts.idle()) {
        ts.pending.clear();
        ts.head = 0;
      }
      if (progress && (emitted_ & 0xffff) == 0) progress(emitted_);
    }
    for (uint32_t t = 1; t < o_.threads; ++t) {
      Status s = Emit(0, {EventKind::kJoin, t, pc_fork + 1});
      if (!s.ok()) return s;
    }
    if (progress) progress(emitted_);
    return Status::Ok();
  }

 private:
  std::string Describe() const {
    return "--events " + std::to_string(o_.events) + " --threads " + std::to_string(o_.threads) + " --locks " +
           std::to_string(o_.locks) + " --vars " + std::to_string(o_.variables) + " --locations " +
           std::to_string(o_.locations) + " --seed " + std::to_string(o_.seed) + " --protected-fraction " +
           std::to_string(o_.protected_fraction) + " --write-fraction " + std::to_string(o_.write_fraction) +
           " --max-nesting " + std::to_string(o_.max_nesting) + " --random-order-fraction " +
           std::to_string(o_.random_order_fraction) + " --max-block " + std::to_string(o_.max_block);
  }

  void MakeSites() {
    Rng site_rng(o_.seed ^ 0x5eed5eed5eed5eedull);
    sites_.resize(o_.locations);
    for (Site& s : sites_) {
      s.variable = site_rng.Below(o_.variables);
      s.kind = site_rng.Unit() < o_.write_fraction ? EventKind::kWrite : EventKind::kRead;
    }
  }

  // Events not yet promised to any block or to the final joins.
  uint64_t Free() const { return o_.events - emitted_ - committed_ - joins_left_; }

  bool CanRun(const ThreadState& ts) const {
    if (!ts.started) return false;
    if (ts.idle()) return Free() > 0;
    const Step& next = ts.pending[ts.head];
    if (next.kind != EventKind::kAcquire) return true;
    return holder_[next.object] < 0;
  }

  // A random runnable thread, or -1 if none can run.
  int64_t PickRunnable() {
    const uint32_t n = o_.threads;
    for (uint32_t probe = 0; probe < 2 * n; ++probe) {
      uint64_t t = rng_.Below(n);
      if (CanRun(threads_[t])) return static_cast<int64_t>(t);
      if (InDeadlock(static_cast<uint32_t>(t))) {
        GiveUpAcquire(&threads_[t]);
        if (CanRun(threads_[t])) return static_cast<int64_t>(t);
      }
    }
    // Few threads can run: choose among them exactly.
    runnable_.clear();
    for (uint32_t t = 0; t < n; ++t) {
      if (!CanRun(threads_[t]) && InDeadlock(t)) GiveUpAcquire(&threads_[t]);
      if (CanRun(threads_[t])) runnable_.push_back(t);
    }
    if (runnable_.empty()) return -1;
    return runnable_[rng_.Below(runnable_.size())];
  }

  // Whether `t` waits for a lock in a cycle of waiting threads (nested locks
  // taken in random order can do that while other threads run on).
  bool InDeadlock(uint32_t t) const {
    uint32_t cur = t;
    for (uint32_t steps = 0; steps < o_.threads; ++steps) {
      const ThreadState& ts = threads_[cur];
      if (!ts.started || ts.idle()) return false;
      const Step& next = ts.pending[ts.head];
      if (next.kind != EventKind::kAcquire || holder_[next.object] < 0) return false;
      cur = static_cast<uint32_t>(holder_[next.object]);
      if (cur == t) return true;
    }
    return false;
  }

  // `ts` gives up its next acquisition and the matching release, and runs that
  // section unlocked: the cycle is broken.
  void GiveUpAcquire(ThreadState* ts) {
    const Step acq = ts->pending[ts->head];
    auto rel = std::find_if(ts->pending.begin() + ts->head + 1, ts->pending.end(),
                            [&](const Step& s) { return s.kind == EventKind::kRelease && s.object == acq.object; });
    ts->pending.erase(rel);
    ts->pending.erase(ts->pending.begin() + ts->head);
    committed_ -= 2;
  }

  void StartBlock(ThreadState* ts) {
    const uint64_t free = Free();
    uint32_t depth = 0;
    if (o_.locks > 0 && free >= 3 && rng_.Unit() < o_.protected_fraction) {
      depth = 1 + static_cast<uint32_t>(rng_.Below(std::min(o_.max_nesting, o_.locks)));
      depth = static_cast<uint32_t>(std::min<uint64_t>(depth, (free - 1) / 2));
    }
    uint64_t accesses = 1 + rng_.Below(o_.max_block);
    accesses = std::min<uint64_t>(accesses, free - 2ull * depth);

    locks_.clear();
    while (locks_.size() < depth) {
      uint64_t l = rng_.Below(o_.locks);
      if (std::find(locks_.begin(), locks_.end(), l) == locks_.end()) locks_.push_back(l);
    }
    if (!(rng_.Unit() < o_.random_order_fraction)) std::sort(locks_.begin(), locks_.end());

    const uint64_t pc_lock = o_.locations;
    for (size_t i = 0; i < locks_.size(); ++i) {
      ts->pending.push_back({EventKind::kAcquire, locks_[i], pc_lock + 2 * locks_[i]});
      // One access between nested acquires, the rest innermost.
      if (i + 1 < locks_.size() && accesses > 1) {
        PushAccess(ts);
        --accesses;
      }
    }
    for (uint64_t i = 0; i < accesses; ++i) PushAccess(ts);
    for (size_t i = locks_.size(); i-- > 0;)
      ts->pending.push_back({EventKind::kRelease, locks_[i], pc_lock + 2 * locks_[i] + 1});
    committed_ += ts->pending.size() - ts->head;
  }

  void PushAccess(ThreadState* ts) {
    const uint64_t p = rng_.Below(o_.locations);
    ts->pending.push_back({sites_[p].kind, sites_[p].variable, p});
  }

  Status Emit(uint32_t tid, const Step& step) {
    Event e;
    e.tid = tid;
    e.kind = step.kind;
    e.object = step.object;
    e.pc = step.pc;
    if (IsAccess(step.kind)) e.aux = 1;
    if (step.kind == EventKind::kAcquire) holder_[step.object] = tid;
    if (step.kind == EventKind::kRelease) holder_[step.object] = -1;
    if (step.kind == EventKind::kFork) threads_[step.object].started = true;
    if (step.kind == EventKind::kJoin) --joins_left_;
    ++emitted_;
    return w_->Append(e);
  }

  const GenOptions o_;
  TraceWriter* w_;
  Rng rng_;
  std::vector<ThreadState> threads_;
  std::vector<int64_t> holder_;  // thread holding each lock, -1 if free
  std::vector<Site> sites_;
  std::vector<uint64_t> locks_;
  std::vector<uint32_t> runnable_;
  uint64_t emitted_ = 0;
  uint64_t committed_ = 0;  // events in blocks started but not emitted, and forks
  uint64_t joins_left_ = 0;
};

}  // namespace

Status ValidateGenOptions(const GenOptions& o) {
  if (o.threads == 0) return Status::InvalidArgument("--threads must be at least 1");
  if (o.threads > (1u << 16)) return Status::InvalidArgument("--threads must be at most 65536");
  if (o.events < 2ull * (o.threads - 1))
    return Status::InvalidArgument("--events must be at least 2*(threads-1) = " +
                                   std::to_string(2ull * (o.threads - 1)) + " for the forks and joins");
  if (o.variables == 0) return Status::InvalidArgument("--vars must be at least 1");
  if (o.locations == 0) return Status::InvalidArgument("--locations must be at least 1");
  if (o.locations > (1ull << 26)) return Status::InvalidArgument("--locations must be at most 67108864");
  if (o.locks > (1u << 24)) return Status::InvalidArgument("--locks must be at most 16777216");
  if (o.max_block == 0) return Status::InvalidArgument("--max-block must be at least 1");
  if (o.max_nesting == 0) return Status::InvalidArgument("--max-nesting must be at least 1");
  for (auto [name, v] : {std::pair{"--protected-fraction", o.protected_fraction},
                         {"--write-fraction", o.write_fraction},
                         {"--random-order-fraction", o.random_order_fraction}})
    if (!(v >= 0.0 && v <= 1.0)) return Status::InvalidArgument(std::string(name) + " must be between 0 and 1");
  return Status::Ok();
}

Status Generate(const GenOptions& options, TraceWriter* w, const std::function<void(uint64_t)>& progress) {
  Status s = ValidateGenOptions(options);
  if (!s.ok()) return s;
  Generator g(options, w);
  return g.Run(progress);
}

}  // namespace seer::gen
