// Progress of long work (import, gen, analyze, info) on stderr: one line
// rewritten in place at most ten times a second, and only when stderr is a
// terminal, so that scripts and logs never see it.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <vector>

#include "predictor/progress.h"

namespace seer::cli {

class Progress {
 public:
  // `unit` names what is counted ("events", "lines"); `total` is 0 when unknown.
  explicit Progress(std::string unit, uint64_t total = 0);
  ~Progress() { Finish(); }
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;

  void Update(uint64_t done);
  // Clears the line; called by the destructor too.
  void Finish();
  // A callback for the library functions that report progress.
  std::function<void(uint64_t)> Callback() {
    return [this](uint64_t done) { Update(done); };
  }

 private:
  using Clock = std::chrono::steady_clock;
  const std::string unit_;
  const uint64_t total_;
  const bool enabled_;
  bool shown_ = false;
  Clock::time_point start_;
  Clock::time_point last_;
};

// When a progress line is drawn.
enum class ProgressMode {
  kTerminal,  // when stderr is a terminal (the default)
  kAlways,    // --progress: also into a pipe or a file, one line per update
  kNever,     // --no-progress
};

// The progress of `seer analyze`: the events the engines consumed of the trace's
// total, each windowed engine's windows, and an estimate of the time left, e.g.
//   analyze: 1.20G of 2.00G events 60% (3.1M/s) | deadlock 3/5 windows | about 4m20s left
// The estimate takes the least advanced of these as the fraction done.
class AnalysisProgressLine : public predictor::AnalysisProgress {
 public:
  using Clock = std::chrono::steady_clock;
  // `now`: the clock (tests drive their own).
  explicit AnalysisProgressLine(ProgressMode mode, std::function<Clock::time_point()> now = Clock::now);
  ~AnalysisProgressLine() override { Finish(); }
  AnalysisProgressLine(const AnalysisProgressLine&) = delete;
  AnalysisProgressLine& operator=(const AnalysisProgressLine&) = delete;

  void Fed(uint64_t events, uint64_t total) override;
  void Decided(const std::string& engine, const std::string& unit, uint64_t done, uint64_t total) override;
  // Clears the line (a terminal) or ends it (--progress); called by the destructor too.
  void Finish();

 private:
  struct Stage {
    std::string engine;
    std::string unit;
    uint64_t done = 0;
    uint64_t total = 0;
  };
  // Draws the line if the last one is a tenth of a second old (or `force`); under mu_.
  void Draw(bool force);

  const std::function<Clock::time_point()> now_;
  const bool enabled_;
  const bool terminal_;  // rewritten in place; else one line per update, at most one a second
  std::mutex mu_;
  bool shown_ = false;
  bool finished_ = false;
  uint64_t events_ = 0;
  uint64_t total_events_ = 0;
  std::vector<Stage> stages_;
  Clock::time_point start_;
  Clock::time_point last_;
};

}  // namespace seer::cli
