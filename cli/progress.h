// Progress of long work (import, gen, analyze, info) on stderr: one line
// rewritten in place at most ten times a second, and only when stderr is a
// terminal, so that scripts and logs never see it.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <string>

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

}  // namespace seer::cli
