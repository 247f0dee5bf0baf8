// Writes the Prometheus text exposition format (version 0.0.4): one HELP and
// TYPE line per family, then its samples, label values escaped as the format
// asks (backslash, double quote, newline).
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace seer::daemon {

using Labels = std::vector<std::pair<std::string, std::string>>;

class PrometheusText {
 public:
  // Starts a family: `type` is counter, gauge or histogram.
  void Family(const std::string& name, const std::string& type, const std::string& help);
  // A sample of the current family; `name` is the family's name or, for a
  // histogram, with _bucket, _sum or _count.
  void Sample(const std::string& name, const Labels& labels, double value);

  const std::string& text() const { return text_; }

  static std::string Escape(const std::string& value);
  static std::string Number(double value);  // integers without a fraction; +Inf

 private:
  std::string text_;
};

}  // namespace seer::daemon
