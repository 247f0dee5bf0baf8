#include "daemon/prometheus_text.h"

#include <fmt/format.h>

#include <cmath>

namespace seer::daemon {

void PrometheusText::Family(const std::string& name, const std::string& type, const std::string& help) {
  std::string h;
  for (char c : help) h += c == '\n' ? std::string("\\n") : c == '\\' ? std::string("\\\\") : std::string(1, c);
  text_ += "# HELP " + name + " " + h + "\n# TYPE " + name + " " + type + "\n";
}

void PrometheusText::Sample(const std::string& name, const Labels& labels, double value) {
  text_ += name;
  if (!labels.empty()) {
    text_ += "{";
    for (size_t i = 0; i < labels.size(); ++i)
      text_ += (i ? "," : "") + labels[i].first + "=\"" + Escape(labels[i].second) + "\"";
    text_ += "}";
  }
  text_ += " " + Number(value) + "\n";
}

std::string PrometheusText::Escape(const std::string& value) {
  std::string out;
  for (char c : value) {
    if (c == '\\')
      out += "\\\\";
    else if (c == '"')
      out += "\\\"";
    else if (c == '\n')
      out += "\\n";
    else
      out += c;
  }
  return out;
}

std::string PrometheusText::Number(double value) {
  if (std::isinf(value)) return value > 0 ? "+Inf" : "-Inf";
  if (std::isnan(value)) return "NaN";
  if (value == std::floor(value) && std::fabs(value) < 1e15) return fmt::format("{}", static_cast<int64_t>(value));
  return fmt::format("{}", value);
}

}  // namespace seer::daemon
