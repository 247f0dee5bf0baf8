// What the suites that compare one analysis run's reports with another way of
// computing them share (tests/predictor/jobs: --jobs N against one job;
// tests/predictor/shard: merged shards against one run): the varied traces
// they draw, the analysis options that cut those into windows and spend
// budgets, and a cheap way to say where two reports differ.
#pragma once

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "gen/generator.h"
#include "predictor/analyze.h"
#include "seer/trace.h"
#include "tests/support/random_trace.h"

namespace seer::test {

// Test traces are thrown away: no fsync on close.
inline TraceWriterOptions Unsynced() {
  TraceWriterOptions o;
  o.sync_on_close = false;
  return o;
}

// Counter `counter` of `analysis` in the findings' statistics; -1 if absent.
inline double Stat(const predictor::Findings& f, const std::string& analysis, const std::string& counter) {
  for (const predictor::AnalysisStats& st : f.stats)
    if (st.analysis == analysis)
      for (const auto& [name, value] : st.counters)
        if (name == counter) return value;
  return -1;
}

// "" when equal, else the first line that differs in each. Not EXPECT_EQ on
// the reports: gtest's diff of two long strings is quadratic (it ran out of
// 24 GB on two reports that differed).
inline std::string FirstDifference(const std::string& a, const std::string& b) {
  if (a == b) return "";
  size_t at = 0;
  while (at < a.size() && at < b.size() && a[at] == b[at]) ++at;
  auto line = [&](const std::string& s) {
    const size_t begin = s.rfind('\n', at == 0 ? 0 : at - 1);
    const size_t from = begin == std::string::npos ? 0 : begin + 1;
    return s.substr(from, s.find('\n', at) - from);
  };
  return "byte " + std::to_string(at) + ": '" + line(a) + "' vs '" + line(b) + "'";
}

// A generated trace of 2000 to 2000 + `extra_events` events (gen/generator.h)
// written to `path`, its shape drawn from `rng`; then the options that cut it
// into SeqCheck windows (or not) and give the deadlock engine a budget that
// runs out in some.
inline Status WriteVariedGeneratedTrace(const std::string& path, uint64_t seed, uint64_t extra_events,
                                        std::mt19937_64* rng, predictor::AnalysisOptions* options) {
  gen::GenOptions g;
  g.seed = seed;
  g.events = 2000 + (*rng)() % extra_events;
  g.threads = 2 + static_cast<uint32_t>((*rng)() % 6);
  g.locks = 1 + static_cast<uint32_t>((*rng)() % 5);
  g.variables = 4 + (*rng)() % 60;
  g.locations = 16 + (*rng)() % 200;
  g.max_nesting = 1 + static_cast<uint32_t>((*rng)() % 3);
  g.random_order_fraction = 0.3;
  std::unique_ptr<TraceWriter> w;
  Status s = TraceWriter::Create(path, Unsynced(), &w);
  if (s.ok()) s = gen::Generate(g, w.get());
  if (s.ok()) s = w->Close();
  if (!s.ok()) return s;
  *options = predictor::AnalysisOptions();
  const uint64_t windows[] = {0, 500, 1500, 4000};
  options->seqcheck_window = windows[(*rng)() % 4];
  const uint64_t checks[] = {5, 40, 20000};
  options->deadlock_max_checks = checks[(*rng)() % 3];
  options->atomicity_window = 50 + (*rng)() % 500;
  return Status::Ok();
}

// A small random trace (random_trace.h) with rwlocks, atomics, signals, frees
// and try-locks as `seed` picks them, written to `path`; then options that cut
// it into windows of a few events (or not) and a deadlock budget of 2 checks
// (or plenty).
inline Status WriteVariedRandomTrace(const std::string& path, int seed, predictor::AnalysisOptions* options) {
  std::mt19937_64 rng(static_cast<uint64_t>(seed) * 7919);
  RandomTraceOptions r;
  r.threads = 2 + static_cast<uint32_t>(rng() % 3);
  r.events = 20 + static_cast<uint32_t>(rng() % 100);
  r.locks = 1 + static_cast<uint32_t>(rng() % 3);
  r.variables = 1 + static_cast<uint32_t>(rng() % 4);
  r.rwlocks = seed % 2 == 0;
  r.atomics = seed % 3 == 0;
  r.signals = seed % 5 == 0;
  r.frees = seed % 7 == 0 ? 0.1 : 0;
  r.nonblocking = seed % 11 == 0 ? 0.2 : 0;
  const std::vector<Event> events = RandomTrace(r, static_cast<uint64_t>(seed));
  std::unique_ptr<TraceWriter> w;
  Status s = TraceWriter::Create(path, Unsynced(), &w);
  if (!s.ok()) return s;
  for (uint32_t t = 0; t < r.threads; ++t) w->AddThread({t, -1, t == 0 ? -1 : 0, ""});
  for (const Event& e : events) {
    s = w->Append(e);
    if (!s.ok()) return s;
  }
  s = w->Close();
  if (!s.ok()) return s;
  *options = predictor::AnalysisOptions();
  options->seqcheck_window = rng() % 2 == 0 ? 0 : 4 + rng() % 30;
  options->deadlock_max_checks = rng() % 2 == 0 ? 2 : 20000;
  return Status::Ok();
}

}  // namespace seer::test
