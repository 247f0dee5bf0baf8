#include "cli/progress.h"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <utility>

namespace seer::cli {
namespace {

std::string Count(double n) {
  if (n >= 1e9) return fmt::format("{:.2f}G", n / 1e9);
  if (n >= 1e6) return fmt::format("{:.2f}M", n / 1e6);
  if (n >= 1e3) return fmt::format("{:.1f}k", n / 1e3);
  return fmt::format("{:.0f}", n);
}

// "4m20s", "35s", "2h05m": how long is left, to a user.
std::string Duration(double secs) {
  const auto s = static_cast<uint64_t>(secs + 0.5);
  if (s >= 3600) return fmt::format("{}h{:02}m", s / 3600, s % 3600 / 60);
  if (s >= 60) return fmt::format("{}m{:02}s", s / 60, s % 60);
  return fmt::format("{}s", s);
}

}  // namespace

Progress::Progress(std::string unit, uint64_t total)
    : unit_(std::move(unit)),
      total_(total),
      enabled_(isatty(STDERR_FILENO) == 1),
      start_(Clock::now()),
      last_(start_) {}

void Progress::Update(uint64_t done) {
  if (!enabled_) return;
  const auto now = Clock::now();
  if (now - last_ < std::chrono::milliseconds(100)) return;
  last_ = now;
  const double secs = std::chrono::duration<double>(now - start_).count();
  std::string line = fmt::format("\r{} {} ({}/s)", Count(static_cast<double>(done)), unit_,
                                 Count(secs > 0 ? static_cast<double>(done) / secs : 0));
  if (total_ > 0) line += fmt::format(" {:.0f}%", 100.0 * static_cast<double>(done) / static_cast<double>(total_));
  line += "\x1b[K";  // erase what a longer previous line left
  std::fputs(line.c_str(), stderr);
  shown_ = true;
}

void Progress::Finish() {
  if (!shown_) return;
  std::fputs("\r\x1b[K", stderr);
  shown_ = false;
}

AnalysisProgressLine::AnalysisProgressLine(ProgressMode mode, std::function<Clock::time_point()> now)
    : now_(std::move(now)),
      enabled_(mode == ProgressMode::kAlways || (mode == ProgressMode::kTerminal && isatty(STDERR_FILENO) == 1)),
      terminal_(isatty(STDERR_FILENO) == 1),
      start_(now_()),
      last_(start_) {}

void AnalysisProgressLine::Fed(uint64_t events, uint64_t total) {
  if (!enabled_) return;
  std::lock_guard<std::mutex> lock(mu_);
  events_ = events;
  total_events_ = total;
  Draw(false);
}

void AnalysisProgressLine::Decided(const std::string& engine, const std::string& unit, uint64_t done, uint64_t total) {
  if (!enabled_) return;
  std::lock_guard<std::mutex> lock(mu_);
  auto it = std::find_if(stages_.begin(), stages_.end(), [&](const Stage& s) { return s.engine == engine; });
  if (it == stages_.end()) it = stages_.insert(stages_.end(), Stage{engine, unit, 0, 0});
  it->done = done;
  it->total = total;
  // The last unit of an engine is worth seeing: it may be the end of a long wait.
  Draw(done == total);
}

void AnalysisProgressLine::Draw(bool force) {
  const auto now = now_();
  const auto every = terminal_ ? std::chrono::milliseconds(100) : std::chrono::milliseconds(1000);
  if (!force && now - last_ < every) return;
  last_ = now;
  const double secs = std::chrono::duration<double>(now - start_).count();
  const auto events = static_cast<double>(events_);
  std::string line = fmt::format("analyze: {}", Count(events));
  if (total_events_ > 0) line += fmt::format(" of {}", Count(static_cast<double>(total_events_)));
  line += " events";
  // The least advanced part of the work, as a fraction of it.
  double fraction = 1;
  if (total_events_ > 0) {
    fraction = std::min(1.0, events / static_cast<double>(total_events_));
    line += fmt::format(" {:.0f}%", 100 * fraction);
  }
  line += fmt::format(" ({}/s)", Count(secs > 0 ? events / secs : 0));
  for (const Stage& stage : stages_) {
    line += fmt::format(" | {} {}/{} {}", stage.engine, stage.done, stage.total, stage.unit);
    if (stage.total > 0)
      fraction = std::min(fraction, static_cast<double>(stage.done) / static_cast<double>(stage.total));
  }
  // Not before a second has gone by (too little to go on), nor under a second.
  const double left = fraction > 0 ? secs * (1 - fraction) / fraction : 0;
  if (total_events_ > 0 && secs >= 1 && left >= 1) line += fmt::format(" | about {} left", Duration(left));
  if (terminal_)
    std::fputs(("\r" + line + "\x1b[K").c_str(), stderr);  // erase what a longer line left
  else
    std::fputs((line + "\n").c_str(), stderr);
  shown_ = true;
}

void AnalysisProgressLine::Finish() {
  if (!enabled_) return;
  std::lock_guard<std::mutex> lock(mu_);
  if (terminal_) {
    if (shown_) std::fputs("\r\x1b[K", stderr);
  } else if (!finished_) {
    // A log keeps what the whole analysis took.
    const double secs = std::chrono::duration<double>(now_() - start_).count();
    std::fputs(fmt::format("analyze: {} events in {}\n", Count(static_cast<double>(events_)), Duration(secs)).c_str(),
               stderr);
  }
  shown_ = false;
  finished_ = true;
}

}  // namespace seer::cli
