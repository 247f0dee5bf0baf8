#include "predictor/report/perfetto_timeline.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <memory>
#include <optional>
#include <unordered_map>
#include <vector>

#include <nlohmann/json.hpp>

#include "predictor/report/details.h"
#include "predictor/report/race_groups.h"
#include "predictor/report/report.h"
#include "seer/trace.h"
#include "store/trace_clock.h"

namespace seer::predictor {
namespace {

using nlohmann::json;

constexpr int kPid = 1;

// A JSON string literal.
std::string Quoted(const std::string& s) { return json(s).dump(-1, ' ', false, json::error_handler_t::replace); }

// One trace event, kept small: a window holds up to millions of them, and they
// are sorted before they are written.
struct TraceEvent {
  double ts;  // µs
  uint32_t tid;
  char ph;           // 'B', 'E', 'i', 's', 'f'
  uint64_t id = 0;   // flows
  std::string name;  // quoted
  const char* cat = "";
  std::string args;  // a JSON object, or ""
};

// A span open on a thread's track.
struct OpenSpan {
  std::string name;  // quoted
  const char* cat;
  uint64_t object;  // the lock, or the condition variable of a wait
  std::string args;
};

// A lock_wait seen on a thread, drawn once its acquire comes.
struct PendingWait {
  uint64_t lock = 0;
  uint64_t waited_ns = 0;
  double ts = 0;  // the lock_wait event's timestamp
  std::string args;
};

struct ThreadTrack {
  std::optional<PendingWait> wait;
  std::vector<OpenSpan> open;  // innermost last
  uint64_t last = 0;           // position of its last event in the window
  double last_ts = 0;          // latest timestamp written on the track
  bool seen = false;
};

class TimelineBuilder {
 public:
  TimelineBuilder(const TraceReader& trace, ReportDetails* details)
      : names_(trace), details_(details), clock_(trace.info().clock) {}

  // An event's timestamp in µs: its time, or its position without a clock.
  double Stamp(uint64_t index) const {
    return clock_.has_times() ? clock_.TimeNs(index) / 1000.0 : static_cast<double>(index);
  }
  bool has_times() const { return clock_.has_times(); }

  void Add(const Event& e) {
    ThreadTrack& t = tracks_[e.tid];
    const double ts = Stamp(e.index);
    if (!t.seen) {
      t.seen = true;
      Begin(e.tid, ts,
            {Quoted("thread " + names_.Thread(e.tid)), "thread", 0, fmt::format(R"({{"first_event":{}}})", e.index)});
      auto fork = pending_forks_.find(e.tid);
      if (fork != pending_forks_.end()) {
        Flow('f', e.tid, ts, fork->second, "fork");
        pending_forks_.erase(fork);
      }
    }
    t.last = e.index;
    // A span covers its events: it ends after its closing event, where the next
    // event of the trace (of any thread) is.
    const double after = Stamp(e.index + 1);
    switch (e.kind) {
      case EventKind::kLockWait:
        t.wait = PendingWait{e.object, e.aux, ts,
                             fmt::format(R"({{"lock":{},"waited_ns":{},"site":{},"event":{}}})", QuotedLock(e.object),
                                         e.aux, QuotedSite(e), e.index)};
        break;
      case EventKind::kAcquire:
        if (t.wait && t.wait->lock == e.object) DrawWait(e.tid, ts);
        t.wait.reset();
        Begin(e.tid, ts, {HeldName(e.object), "lock", e.object, LockArgs(e)});
        break;
      case EventKind::kRelease: End(e.tid, after, "lock", e.object); break;
      case EventKind::kCondWaitBegin:
        End(e.tid, ts, "lock", e.aux);  // the wait releases the mutex: its hold ends as the wait starts
        Begin(e.tid, ts,
              {Quoted("wait " + names_.Object(e.kind, e.object)), "cond", e.object,
               fmt::format(R"({{"cond":{},"mutex":{},"event":{}}})", Quoted(names_.Object(e.kind, e.object)),
                           Quoted(LockName(e.aux)), e.index)});
        break;
      case EventKind::kCondWaitEnd: {
        End(e.tid, after, "cond", e.object);
        Event reacquire = e;  // the wait returns holding the mutex again
        reacquire.kind = EventKind::kAcquire;
        reacquire.object = e.aux;
        Begin(e.tid, after, {HeldName(e.aux), "lock", e.aux, LockArgs(reacquire)});
        break;
      }
      case EventKind::kFork: {
        const uint64_t id = next_flow_++;
        Flow('s', e.tid, ts, id, "fork");
        pending_forks_[static_cast<uint32_t>(e.object)] = id;
        break;
      }
      case EventKind::kJoin: {
        auto child = tracks_.find(static_cast<uint32_t>(e.object));
        if (child != tracks_.end() && child->second.seen) {
          const uint64_t id = next_flow_++;
          Flow('s', child->first, Stamp(child->second.last), id, "join");
          Flow('f', e.tid, ts, id, "join");
        }
        break;
      }
      case EventKind::kThreadEnd: CloseAll(e.tid, after); break;
      default: break;
    }
  }

  // Findings as instant events on the threads of their events in the window.
  void AddFindings(const Findings& findings, uint64_t from, uint64_t to) {
    auto instant = [&](const EventRef& e, const std::string& name, json args) {
      if (e.index < from || e.index >= to) return;
      args["event"] = e.index;
      args["site"] = EventSite(names_, details_, e);
      events_.push_back({Stamp(e.index), e.tid, 'i', 0, Quoted(name), "finding",
                         args.dump(-1, ' ', false, json::error_handler_t::replace)});
    };
    int n = 0;
    for (const RaceGroup& g : GroupRaces(findings)) {
      const RacePair& p = *g.pair;
      std::vector<std::string> engines;
      for (const RaceResult* r : g.engines) engines.push_back(r->engine);
      const json args = {{"finding", fmt::format("race {}", ++n)},
                         {"variable", names_.Object(p.first.kind, p.first.object)},
                         {"engines", engines},
                         {"proof", ProofText(g)},
                         {"events", {p.first.index, p.second.index}}};
      instant(p.first, "data race (earlier access)", args);
      instant(p.second, "data race", args);
    }
    n = 0;
    for (const Deadlock& d : findings.deadlocks) {
      json events = json::array();
      for (const DeadlockThread& t : d.cycle) events.push_back({t.held_acquire.index, t.blocked_acquire.index});
      const json args = {{"finding", fmt::format("deadlock {}", ++n)}, {"engine", d.engine}, {"events", events}};
      for (const DeadlockThread& t : d.cycle) {
        instant(t.held_acquire, "deadlock: acquires " + LockName(t.held_lock), args);
        instant(t.blocked_acquire, "deadlock: blocks on " + LockName(t.wanted_lock), args);
      }
    }
    n = 0;
    for (const AtomicityViolation& a : findings.atomicity) {
      const json args = {{"finding", fmt::format("atomicity {}", ++n)},
                         {"engine", a.engine},
                         {"pattern", a.pattern},
                         {"variable", names_.Object(a.local_first.kind, a.local_first.object)},
                         {"events", {a.local_first.index, a.remote.index, a.local_second.index}}};
      instant(a.local_first, "atomicity violation: first access", args);
      instant(a.remote, "atomicity violation: intruder", args);
      instant(a.local_second, "atomicity violation: second access", args);
    }
  }

  void Finish(const std::string& path, uint64_t from, uint64_t to, std::string* out) {
    for (auto& [tid, t] : tracks_)
      if (t.seen) CloseAll(tid, Stamp(t.last + 1));
    // Flows that reach back (a join's start on the child's last event) and
    // instants were added out of time order: order by time, keeping the order
    // of equal times (an End before the Begin that follows it).
    std::stable_sort(events_.begin(), events_.end(),
                     [](const TraceEvent& a, const TraceEvent& b) { return a.ts < b.ts; });
    out->clear();
    out->reserve(events_.size() * 96);
    *out += "{\"traceEvents\":[\n";
    *out += fmt::format(R"({{"ph":"M","name":"process_name","pid":{},"tid":0,"args":{{"name":{}}}}})", kPid,
                        Quoted("seer trace " + path));
    for (const auto& [tid, t] : tracks_) {
      if (!t.seen) continue;
      *out += fmt::format(
          ",\n"
          R"({{"ph":"M","name":"thread_name","pid":{},"tid":{},"args":{{"name":{}}}}})",
          kPid, tid, Quoted(names_.Thread(tid)));
      *out += fmt::format(
          ",\n"
          R"({{"ph":"M","name":"thread_sort_index","pid":{},"tid":{},"args":{{"sort_index":{}}}}})",
          kPid, tid, tid);
    }
    for (const TraceEvent& e : events_) {
      *out += fmt::format(
          ",\n"
          R"({{"ph":"{}","pid":{},"tid":{},"ts":{})",
          e.ph, kPid, e.tid, e.ts);
      if (!e.name.empty()) *out += fmt::format(R"(,"name":{},"cat":"{}")", e.name, e.cat);
      if (e.ph == 's' || e.ph == 'f') *out += fmt::format(R"(,"id":{})", e.id);
      if (e.ph == 'f') *out += R"(,"bp":"e")";  // binds to the slice enclosing it
      if (e.ph == 'i') *out += R"(,"s":"t")";
      if (!e.args.empty()) *out += R"(,"args":)" + e.args;
      *out += "}";
    }
    *out += fmt::format(
        "\n],\n"
        R"("displayTimeUnit":"ns","otherData":{{"trace":{},"window":"{}:{}","time":{}}}}})"
        "\n",
        Quoted(path), from, to,
        Quoted(has_times() ? "ts is the event's time after the recording started, from the trace's clock samples "
                             "(to within a drain round of the recorder, about 1 ms); events of one round are "
                             "spread evenly over it in trace order"
                           : "ts is the event's position in the trace's total order (1 us per event): this "
                             "trace has no clock samples"));
  }

 private:
  std::string LockName(uint64_t lock) {
    std::string name = names_.ObjectName(EventKind::kAcquire, lock);
    if (name.empty() && details_ != nullptr) name = GlobalName(*details_, lock);
    return name.empty() ? names_.Object(EventKind::kAcquire, lock) : name;
  }

  // Names and sites repeat: each is looked up and quoted once.
  const std::string& HeldName(uint64_t lock) {
    auto [it, fresh] = held_names_.try_emplace(lock);
    if (fresh) it->second = Quoted(LockName(lock) + " held");
    return it->second;
  }
  const std::string& QuotedLock(uint64_t lock) {
    auto [it, fresh] = lock_names_.try_emplace(lock);
    if (fresh) it->second = Quoted(LockName(lock));
    return it->second;
  }
  const std::string& QuotedSite(const Event& e) {
    auto [it, fresh] = sites_.try_emplace(e.pc);
    if (fresh) it->second = Quoted(EventSite(names_, details_, EventRef::Of(e)));
    return it->second;
  }

  std::string LockArgs(const Event& e) {
    return fmt::format(R"({{"lock":{},"mode":"{}","site":{},"event":{}}})", QuotedLock(e.object),
                       e.mode == static_cast<uint8_t>(LockMode::kShared) ? "read" : "exclusive", QuotedSite(e),
                       e.index);
  }

  // The wait of a thread whose acquire (at `acquired`) ends it. With times it
  // began waited_ns before the acquire, but not before what the track already
  // shows (the clock is coarser than the wait); without, at the lock_wait event.
  void DrawWait(uint32_t tid, double acquired) {
    ThreadTrack& t = tracks_[tid];
    const PendingWait& w = *t.wait;
    const double begin = has_times() ? std::max(t.last_ts, acquired - static_cast<double>(w.waited_ns) / 1000.0) : w.ts;
    const std::string name = Quoted("wait for " + LockName(w.lock));
    events_.push_back({begin, tid, 'B', 0, name, "lock_wait", w.args});
    events_.push_back({acquired, tid, 'E', 0, name, "lock_wait", ""});
    Written(tid, acquired);
  }

  void Begin(uint32_t tid, double ts, OpenSpan span) {
    Written(tid, ts);
    events_.push_back({ts, tid, 'B', 0, span.name, span.cat, span.args});
    tracks_[tid].open.push_back(std::move(span));
  }

  void Written(uint32_t tid, double ts) {
    double& last = tracks_[tid].last_ts;
    last = std::max(last, ts);
  }

  // An E names the span it closes: viewers do not need it, checkers of the
  // nesting do.
  void EndSpan(uint32_t tid, double ts, const OpenSpan& span) {
    Written(tid, ts);
    events_.push_back({ts, tid, 'E', 0, span.name, span.cat, ""});
  }

  // Ends the innermost open span of (cat, object). Spans opened after it end
  // first and open again at once: hand-over-hand locking releases out of order,
  // and a track's spans must nest.
  void End(uint32_t tid, double ts, const char* cat, uint64_t object) {
    std::vector<OpenSpan>& open = tracks_[tid].open;
    size_t i = open.size();
    while (i > 0 && !(std::string_view(open[i - 1].cat) == cat && open[i - 1].object == object)) --i;
    if (i == 0) return;  // opened before the window
    std::vector<OpenSpan> above(std::make_move_iterator(open.begin() + static_cast<ptrdiff_t>(i)),
                                std::make_move_iterator(open.end()));
    for (size_t k = open.size(); k > i - 1; --k) EndSpan(tid, ts, open[k - 1]);
    open.resize(i - 1);
    for (OpenSpan& s : above) Begin(tid, ts, std::move(s));
  }

  void CloseAll(uint32_t tid, double ts) {
    std::vector<OpenSpan>& open = tracks_[tid].open;
    for (size_t k = open.size(); k > 0; --k) EndSpan(tid, ts, open[k - 1]);
    open.clear();
  }

  void Flow(char ph, uint32_t tid, double ts, uint64_t id, const char* name) {
    Written(tid, ts);
    events_.push_back({ts, tid, ph, id, Quoted(name), "thread", ""});
  }

  const ReportNames names_;
  ReportDetails* details_;
  const store::TraceClock clock_;
  std::map<uint32_t, ThreadTrack> tracks_;
  std::map<uint32_t, uint64_t> pending_forks_;  // child tid -> flow id
  uint64_t next_flow_ = 1;
  std::unordered_map<uint64_t, std::string> held_names_, lock_names_, sites_;
  std::vector<TraceEvent> events_;
};

}  // namespace

Status PerfettoTimeline(const std::string& path, const Findings& findings, ReportDetails* details,
                        const TimelineOptions& options, std::string* out) {
  std::unique_ptr<TraceReader> reader;
  Status s = TraceReader::Open(path, &reader);
  if (!s.ok()) return s;
  const uint64_t total = reader->info().counters.events;
  uint64_t from = options.from;
  uint64_t to = std::min(options.to, total);
  if (options.from_ns >= 0 || options.to_ns >= 0) {
    const store::TraceClock clock(reader->info().clock);
    if (!clock.has_times())
      return Status::InvalidArgument(path +
                                     ": the trace has no clock samples (imported, generated, or recorded "
                                     "before seer kept them): give the window in event positions, FROM:TO");
    if (options.from_ns >= 0) from = clock.FirstEventAt(options.from_ns);
    if (options.to_ns >= 0) to = std::min(to, clock.FirstEventAt(options.to_ns));
    if (from >= to)
      return Status::InvalidArgument(
          fmt::format("the time window holds no event: the trace's events span 0 to "
                      "{:.3f} ms",
                      static_cast<double>(clock.span_ns()) / 1e6));
  }
  if (from >= to && total > 0)
    return Status::InvalidArgument(
        fmt::format("--window {}:{} holds no event: the trace has events 0 to {}", from,
                    options.to == TimelineOptions().to ? std::string() : std::to_string(options.to), total - 1));
  const uint64_t size = to > from ? to - from : 0;
  if (size > options.max_events)
    return Status::InvalidArgument(
        fmt::format("the window holds {} events, more than --max-events {}: choose a part with --window FROM:TO (trace "
                    "positions, e.g. --window {}:{}, or times, e.g. --window 1.5s:2s) or raise --max-events",
                    size, options.max_events, from, from + options.max_events));
  if (reader->info().modules.empty()) details = nullptr;

  TimelineBuilder builder(*reader, details);
  std::vector<Event> batch;
  while (true) {
    s = reader->Next(&batch);
    if (!s.ok()) return s;
    if (batch.empty() || batch.front().index >= to) break;
    for (const Event& e : batch)
      if (e.index >= from && e.index < to) builder.Add(e);
  }
  builder.AddFindings(findings, from, to);
  builder.Finish(path, from, to, out);
  return Status::Ok();
}

}  // namespace seer::predictor
