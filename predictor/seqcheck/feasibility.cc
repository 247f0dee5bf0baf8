#include "predictor/seqcheck/feasibility.h"

#include <algorithm>
#include <functional>
#include <queue>
#include <span>
#include <unordered_map>

#include "predictor/seqcheck/closure.h"

namespace seer::predictor::seqcheck {

FeasibilityChecker::FeasibilityChecker(const TraceModel& model, FeasibilityOptions options)
    : m_(model), opt_(options), needs_(model.threads()), observed_(model.threads()) {
  const uint32_t threads = model.threads();
  // A power of two at least the threads: the checkpoints take at most about
  // as many entries as there are nodes.
  stride_ = 1024;
  while (stride_ < threads) stride_ *= 2;
  checkpoints_.reserve((model.size() / stride_ + 1) * threads);
  std::vector<uint32_t> length(threads, 0);
  // In trace order, the nodes in memory order (each thread's positions still
  // ascend): a walk thread by thread missed the cache at every node.
  for (uint32_t i = 0; i < model.size(); ++i) {
    const Node& n = model.node(i);
    if (i % stride_ == 0) checkpoints_.insert(checkpoints_.end(), length.begin(), length.end());
    ++length[n.tid];
    const bool joins = (n.flags & kJoins) && n.other != kNone;
    const bool waits = (n.flags & (kWaits | kAfterCarried)) != 0;
    const bool forked = n.pos == 0 && model.fork_of(n.tid) != kNone;
    if (joins || waits || forked) needs_[n.tid].push_back(n.pos);
    if (n.flags & kReads)
      for (const Access& a : model.accesses(i))
        if (a.obs != kNone) observed_[n.tid].push_back({n.pos, a.obs});
  }
}

bool FeasibilityChecker::Raise(uint32_t t, uint32_t c) {
  if (c <= cut_[t]) return true;
  if (c > limit_[t]) return false;
  cut_[t] = c;
  worklist_.push_back(t);
  return true;
}

// Reads at positions below the limit keep their observed write: without branch
// events, every read but a thread's last scheduled one (unless the next event
// must be reached); with branch events, the reads before the last branch run.
uint32_t FeasibilityChecker::NeedyLimit(uint32_t t) const {
  const uint32_t c = cut_[t];
  if (m_.has_branches()) {
    const auto& bp = m_.branch_positions(t);
    auto it = std::lower_bound(bp.begin(), bp.end(), c);
    return it == bp.begin() ? 0 : *(it - 1);
  }
  if (enabled_[t]) return c;
  return c > 0 ? c - 1 : 0;
}

bool FeasibilityChecker::RaiseNeeds(uint32_t t, uint32_t p) {
  const uint32_t id = m_.At(t, p);
  const Node& n = m_.node(id);
  bool ok = true;
  if ((n.flags & kJoins) && n.other != kNone) {
    const uint32_t child = m_.node(n.other).tid;
    ok = Raise(child, m_.thread_length(child));
  }
  if (n.flags & (kWaits | kAfterCarried))
    for (uint32_t s : m_.signals_before(id)) ok = ok && Raise(m_.node(s).tid, m_.node(s).pos + 1);
  if (p == 0 && m_.fork_of(t) != kNone) {
    const Node& f = m_.node(m_.fork_of(t));
    ok = ok && Raise(f.tid, f.pos + 1);
  }
  return ok;
}

bool FeasibilityChecker::IsNeedyRead(uint32_t node) const {
  const Node& n = m_.node(node);
  return (n.flags & kReads) && n.pos < NeedyLimit(n.tid);
}

// Algorithm 1: grow the per-thread prefixes until they are closed under the
// events they need (observed writes of needy reads, the child's last event of
// a join, the fork of a child, the signals of a wait) and no two threads end
// holding the same lock in conflicting modes.
bool FeasibilityChecker::ComputeCandidateSet(const Query& q, std::string* why) {
  (void)q;
  while (true) {
    while (!worklist_.empty()) {
      const uint32_t t = worklist_.back();
      worklist_.pop_back();
      // At most kChunk events per visit, then the thread goes to the back of the
      // queue: the closure is the same in any order, but a contradiction (an
      // event needed past a bound) shows after about as much work as its distance
      // from the window start, not after a whole prefix of millions of events.
      constexpr uint32_t kChunk = 4096;
      // The events run need theirs; so does an event that must be reached: a
      // thread's first event is enabled only once its fork has run.
      const uint32_t cut = cut_[t];
      const uint32_t reach = enabled_[t] && cut < m_.thread_length(t) ? cut + 1 : cut;
      const uint32_t end = std::min(reach, processed_[t] + kChunk);
      const std::vector<uint32_t>& needs = needs_[t];
      for (auto it = std::lower_bound(needs.begin(), needs.end(), processed_[t]); it != needs.end() && *it < end;
           ++it) {
        if (!RaiseNeeds(t, *it)) {
          *why = "needs an event past a thread's bound (join, fork or signal)";
          return false;
        }
      }
      processed_[t] = std::max(processed_[t], std::min(end, cut));
      const uint32_t limit = std::min(NeedyLimit(t), needy_done_[t] + kChunk);
      const std::vector<ObservedWrite>& observed = observed_[t];
      auto from = std::lower_bound(observed.begin(), observed.end(), needy_done_[t],
                                   [](const ObservedWrite& o, uint32_t p) { return o.pos < p; });
      for (auto it = from; it != observed.end() && it->pos < limit; ++it) {
        // A write of the fixed prefix (a node before prefix_) is below every
        // cut already: no need to look at its node, a cache miss per read.
        if (it->obs >= prefix_ && !Raise(m_.node(it->obs).tid, m_.node(it->obs).pos + 1)) {
          *why = "a read needs a write past a thread's bound";
          return false;
        }
      }
      needy_done_[t] = std::max(needy_done_[t], limit);
      if (end < reach || needy_done_[t] < NeedyLimit(t)) worklist_.insert(worklist_.begin(), t);
    }

    // Sequence lock orders (Algorithm 1, lines 6-11 and 20-29): when a runs
    // before b, a section of a's thread open after a ends before b's thread
    // enters a conflicting section at or after b.
    bool raised = false;
    for (auto [a, b] : ordered_) {
      const Node& na = m_.node(a);
      const Node& nb = m_.node(b);
      if (na.tid == nb.tid) continue;
      bool ok = true;
      m_.ForEachOpenAt(na.tid, na.pos + 1, [&](uint32_t s) {
        const Node& ns = m_.node(s);
        const auto& as = m_.acquires(ns.lock, nb.tid, (ns.flags & kShared) != 0);
        auto it = std::lower_bound(as.begin(), as.end(), cut_[nb.tid]);
        if (it == as.begin()) return;
        const Node& latest = m_.node(m_.At(nb.tid, *(it - 1)));
        const bool reaches_b = latest.match == kNone || m_.node(latest.match).pos >= nb.pos;
        if (!reaches_b) return;
        if (ns.match == kNone) {
          ok = false;
          return;
        }
        const uint32_t after = m_.node(ns.match).pos + 1;
        if (after <= cut_[na.tid]) return;
        if (!Raise(na.tid, after))
          ok = false;
        else
          raised = true;
      });
      if (!ok) {
        *why = "a lock held at one sequence event is needed at a later one";
        return false;
      }
    }
    if (raised) continue;

    // Lock feasibility: sections still open at the end, grouped by lock.
    std::vector<std::pair<uint32_t, uint32_t>> open;  // (lock, acquire node)
    for (uint32_t t = 0; t < m_.threads(); ++t)
      m_.ForEachOpenAt(t, cut_[t], [&](uint32_t a) { open.push_back({m_.node(a).lock, a}); });
    std::sort(open.begin(), open.end());
    for (size_t i = 0; i < open.size();) {
      size_t j = i;
      while (j < open.size() && open[j].first == open[i].first) ++j;
      if (j - i > 1) {
        auto exclusive = [&](uint32_t a) { return (m_.node(a).flags & kShared) == 0; };
        auto closable = [&](uint32_t a) {
          const Node& n = m_.node(a);
          return n.match != kNone && m_.node(n.match).pos + 1 <= limit_[n.tid];
        };
        // Survivors: the sections that cannot be closed, else the latest one.
        std::vector<uint32_t> keep;
        for (size_t k = i; k < j; ++k)
          if (!closable(open[k].second)) keep.push_back(open[k].second);
        if (keep.empty()) keep.push_back(open[j - 1].second);
        const bool keep_exclusive = std::any_of(keep.begin(), keep.end(), exclusive);
        if (keep.size() > 1 && keep_exclusive) {
          *why = "two threads must end holding the same lock";
          return false;
        }
        for (size_t k = i; k < j; ++k) {
          const uint32_t a = open[k].second;
          if (std::find(keep.begin(), keep.end(), a) != keep.end()) continue;
          if (!keep_exclusive && !exclusive(a)) continue;  // read-mode sections share
          const Node& n = m_.node(a);
          Raise(n.tid, m_.node(n.match).pos + 1);  // closable: checked above
          raised = true;
        }
      }
      i = j;
    }
    if (!raised) return true;
  }
}

FeasibilityResult FeasibilityChecker::Check(const Query& q) {
  FeasibilityResult result;
  const uint32_t threads = m_.threads();
  const uint32_t n = static_cast<uint32_t>(m_.size());

  // The fixed prefix: everything before the earliest constrained event.
  uint32_t p = opt_.prefix_reduction ? n : 0;
  for (auto [a, b] : q.order) p = std::min({p, a, b});
  for (const ThreadBound& b : q.threads) {
    if (b.tid >= threads) {
      result.reason = "query names a thread the trace does not have";
      return result;
    }
    if (!b.bounded || b.include > m_.thread_length(b.tid)) continue;
    if (b.include < m_.thread_length(b.tid)) p = std::min(p, m_.At(b.tid, b.include));
    // A section the thread still holds at its bound must come after every
    // conflicting one: it is reordered, not fixed.
    m_.ForEachOpenAt(b.tid, b.include, [&](uint32_t a) { p = std::min(p, a); });
  }
  prefix_ = p;
  base_.assign(threads, 0);
  {
    // Thread t's nodes before checkpoint c all are before p, those from
    // checkpoint c + 1 on are not.
    const size_t c = p / stride_;
    const bool last = c + 1 >= checkpoints_.size() / std::max<uint32_t>(threads, 1);
    for (uint32_t t = 0; t < threads; ++t) {
      const auto& tn = m_.thread_nodes(t);
      const auto first = tn.begin() + (c * threads < checkpoints_.size() ? checkpoints_[c * threads + t] : tn.size());
      const auto end = last ? tn.end() : tn.begin() + checkpoints_[(c + 1) * threads + t];
      base_[t] = static_cast<uint32_t>(std::lower_bound(first, end, p) - tn.begin());
    }
  }
  cut_ = base_;
  processed_ = base_;
  needy_done_ = base_;
  limit_.assign(threads, 0);
  for (uint32_t t = 0; t < threads; ++t) limit_[t] = m_.thread_length(t);
  enabled_.assign(threads, false);
  worklist_.clear();
  for (const ThreadBound& b : q.threads) {
    if (b.include > m_.thread_length(b.tid)) {
      result.reason = "query asks for more events than a thread has";
      return result;
    }
    if (b.bounded) {
      limit_[b.tid] = std::min(limit_[b.tid], b.include);
      enabled_[b.tid] = b.next_enabled;
    }
  }
  for (const ThreadBound& b : q.threads)
    if (!Raise(b.tid, b.include)) {
      result.reason = "query bounds contradict each other";
      return result;
    }
  // The sequence's order, transitively: every pair (a, b) with a before b.
  ordered_.clear();
  for (auto [a, b] : q.order) ordered_.push_back({a, b});
  for (size_t grown = 1; grown;) {
    grown = 0;
    for (size_t i = 0; i < ordered_.size(); ++i)
      for (size_t j = 0; j < ordered_.size(); ++j) {
        if (ordered_[i].second != ordered_[j].first) continue;
        std::pair<uint32_t, uint32_t> ab{ordered_[i].first, ordered_[j].second};
        if (std::find(ordered_.begin(), ordered_.end(), ab) == ordered_.end()) {
          ordered_.push_back(ab);
          grown = 1;
        }
      }
  }
  for (uint32_t t = 0; t < threads; ++t) worklist_.push_back(t);  // needy reads at the boundary
  if (!ComputeCandidateSet(q, &result.reason)) return result;

  WindowOrder order(m_, base_, cut_);
  result.window = order.size();
  if (static_cast<uint64_t>(order.size()) * order.active().size() > opt_.max_clock_cells) {
    result.reason = "window too large";
    result.undecided = true;
    return result;
  }
  auto in_x = [&](uint32_t node) { return node != kNone && m_.node(node).pos < cut_[m_.node(node).tid]; };

  // Algorithm 2: initial orders (fork/join, signals, observations, sequence, locks).
  for (uint32_t u = 0; u < order.size(); ++u) {
    const uint32_t id = order.NodeOf(u);
    const Node& nd = m_.node(id);
    if ((nd.flags & (kForks | kJoins)) && nd.other != kNone && order.InWindow(nd.other)) {
      if (nd.flags & kForks)
        order.AddEdge(id, nd.other);
      else
        order.AddEdge(nd.other, id);
    }
    if (nd.flags & (kWaits | kAfterCarried))
      for (uint32_t s : m_.signals_before(id))
        if (order.InWindow(s)) order.AddEdge(s, id);
    if (IsNeedyRead(id)) {
      for (const Access& a : m_.accesses(id)) {
        if (a.obs != kNone && order.InWindow(a.obs)) {
          order.AddEdge(a.obs, id);
          continue;
        }
        // It read a write of the fixed prefix (or the initial value): every
        // window write to the variable comes after it.
        for (uint32_t v : order.active()) {
          if (v == nd.tid) continue;
          const std::span<const uint32_t> ws = m_.writes(a.var, v);
          auto it = std::lower_bound(ws.begin(), ws.end(), order.lo(v));
          if (it != ws.end() && *it < order.hi(v)) order.AddEdge(id, m_.At(v, *it));
        }
      }
    }
  }
  for (auto [a, b] : q.order) {
    if (!order.InWindow(a) || !order.InWindow(b)) {
      result.reason = "an ordered event is outside the candidate set";
      return result;
    }
    order.AddEdge(a, b);
  }
  for (uint32_t t = 0; t < threads; ++t) {
    // Sections held when the window starts end before any conflicting window section.
    bool held_forever = false;
    m_.ForEachOpenAt(t, base_[t], [&](uint32_t a) {
      const Node& na = m_.node(a);
      const bool shared = (na.flags & kShared) != 0;
      for (uint32_t v : order.active()) {
        if (v == t) continue;
        const auto& as = m_.acquires(na.lock, v, shared);
        auto it = std::lower_bound(as.begin(), as.end(), order.lo(v));
        if (it == as.end() || *it >= order.hi(v)) continue;
        if (!in_x(na.match))
          held_forever = true;
        else
          order.AddEdge(na.match, m_.At(v, *it));
      }
    });
    if (held_forever) {
      result.reason = "a lock held through the window is needed in it";
      return result;
    }
  }
  for (uint32_t t : order.active()) {
    // A section open at the end of the window comes after every conflicting one.
    bool conflict = false;
    m_.ForEachOpenAt(t, order.hi(t), [&](uint32_t a) {
      const Node& na = m_.node(a);
      if (na.pos < order.lo(t)) return;
      const bool shared = (na.flags & kShared) != 0;
      for (uint32_t v : order.active()) {
        if (v == t) continue;
        const auto& as = m_.acquires(na.lock, v, shared);
        auto it = std::lower_bound(as.begin(), as.end(), order.hi(v));
        if (it == as.begin() || *(it - 1) < order.lo(v)) continue;
        const uint32_t other = m_.At(v, *(it - 1));
        if (!in_x(m_.node(other).match))
          conflict = true;
        else
          order.AddEdge(m_.node(other).match, a);
      }
    });
    if (conflict) {
      result.reason = "two threads end holding the same lock";
      return result;
    }
  }

  // Algorithm 3: the closure.
  auto needy = [this](uint32_t node) { return IsNeedyRead(node); };
  if (!CloseOrder(m_, &order, needy, opt_.max_rounds, &result.rounds, &result.reason)) return result;

  // Algorithm 4: a linearisation, earliest trace position first, that never
  // lets a write slip between a needy read and its write, nor two threads hold
  // a lock in conflicting modes.
  const uint32_t w = order.size();
  // Per (window write, variable): the needy reads of the variable that observe it.
  std::unordered_map<uint64_t, uint32_t> readers;
  auto write_key = [](uint32_t write, uint32_t var) { return (uint64_t{write} << 32) | var; };
  std::unordered_map<uint32_t, int64_t> pending;  // var -> needy reads whose write has run
  for (uint32_t u = 0; u < w; ++u) {
    const uint32_t id = order.NodeOf(u);
    if (!IsNeedyRead(id)) continue;
    for (const Access& a : m_.accesses(id)) {
      if (a.obs != kNone && order.InWindow(a.obs))
        ++readers[write_key(a.obs, a.var)];
      else
        ++pending[a.var];
    }
  }
  struct Holders {
    int64_t exclusive = -1;
    uint32_t shared = 0;
  };
  std::unordered_map<uint32_t, Holders> holders;
  for (uint32_t t = 0; t < threads; ++t)
    m_.ForEachOpenAt(t, base_[t], [&](uint32_t a) {
      const Node& na = m_.node(a);
      if (na.flags & kShared)
        ++holders[na.lock].shared;
      else
        holders[na.lock].exclusive = t;
    });
  std::unordered_map<uint32_t, std::vector<uint32_t>> blocked_lock, blocked_var;
  std::priority_queue<uint32_t, std::vector<uint32_t>, std::greater<>> ready;  // by node id = trace order
  std::vector<uint32_t> degree(w);
  for (uint32_t u = 0; u < w; ++u) {
    degree[u] = order.InDegree(u);
    if (degree[u] == 0) ready.push(order.NodeOf(u));
  }
  std::vector<uint32_t> out;  // after the fixed prefix [0, p)
  out.reserve(w);
  auto wake = [&](std::unordered_map<uint32_t, std::vector<uint32_t>>& blocked, uint32_t key) {
    auto it = blocked.find(key);
    if (it == blocked.end()) return;
    for (uint32_t id : it->second) ready.push(id);
    blocked.erase(it);
  };
  while (!ready.empty()) {
    const uint32_t id = ready.top();
    ready.pop();
    const Node& nd = m_.node(id);
    const bool needy_read = IsNeedyRead(id);
    if (nd.flags & kAcquires) {
      const Holders& h = holders[nd.lock];
      const bool free = (nd.flags & kShared) ? h.exclusive < 0 : (h.exclusive < 0 && h.shared == 0);
      if (!free) {
        blocked_lock[nd.lock].push_back(id);
        continue;
      }
    }
    // A write waits while a needy read of one of its variables, other than
    // itself (a read-modify-write), has seen its write and not yet run.
    if (nd.flags & kWrites) {
      uint32_t busy = kNone;
      for (const Access& a : m_.accesses(id))
        if (pending[a.var] > (needy_read ? 1 : 0)) busy = a.var;
      if (busy != kNone) {
        blocked_var[busy].push_back(id);
        continue;
      }
    }
    out.push_back(id);
    const uint32_t u = order.Local(id);
    for (const Access& a : m_.accesses(id)) {
      if (needy_read) --pending[a.var];
      if (nd.flags & kWrites) {
        auto it = readers.find(write_key(id, a.var));
        if (it != readers.end()) pending[a.var] += it->second;
      }
      if (pending[a.var] == 0) wake(blocked_var, a.var);
    }
    if (nd.flags & kAcquires) {
      if (nd.flags & kShared)
        ++holders[nd.lock].shared;
      else
        holders[nd.lock].exclusive = nd.tid;
    }
    if (nd.flags & kReleases) {
      Holders& h = holders[nd.lock];
      if (nd.flags & kShared)
        --h.shared;
      else
        h.exclusive = -1;
      wake(blocked_lock, nd.lock);
    }
    order.ForEachSuccessor(u, [&](uint32_t s) {
      if (--degree[s] == 0) ready.push(order.NodeOf(s));
    });
  }
  if (out.size() != w) {
    result.reason = "no linearisation respects locks and observations";
    return result;
  }
  result.feasible = true;
  result.prefix = p;
  result.schedule = std::move(out);
  return result;
}

}  // namespace seer::predictor::seqcheck
