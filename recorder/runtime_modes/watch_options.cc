#include "recorder/runtime_modes/watch_options.h"

#include <cstdlib>

namespace seer::recorder {

Status ParseWatchShare(const std::string& text, double* percent) {
  if (text.empty()) {
    *percent = 2.0;
    return Status::Ok();
  }
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  if (end != nullptr && *end == '%') ++end;
  if (end == text.c_str() || *end != '\0' || !(v >= 0.1 && v <= 50))
    return Status::InvalidArgument("'" + text + "': give the share of each thread's time, 0.1 to 50 (percent)");
  *percent = v;
  return Status::Ok();
}

void EnableWatch(double percent, InprocOptions* options) {
  options->watch_period = 1000;  // the hooks' first countdown; the budget adapts it
  options->watch_budget_permille = static_cast<uint32_t>(percent * 10 + 0.5);
}

}  // namespace seer::recorder
