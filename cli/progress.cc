#include "cli/progress.h"

#include <fmt/format.h>
#include <unistd.h>

#include <cstdio>

namespace seer::cli {
namespace {

std::string Count(double n) {
  if (n >= 1e9) return fmt::format("{:.2f}G", n / 1e9);
  if (n >= 1e6) return fmt::format("{:.2f}M", n / 1e6);
  if (n >= 1e3) return fmt::format("{:.1f}k", n / 1e3);
  return fmt::format("{:.0f}", n);
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

}  // namespace seer::cli
