#include "expectations.h"

#include <fstream>
#include <map>
#include <regex>

#include "tests/support/program_suite.h"

namespace seer::test {

bool ParseExpectations(const std::string& path, Expectations* out, std::string* error) {
  std::ifstream in(path);
  if (!in) {
    *error = "cannot open " + path;
    return false;
  }
  *out = Expectations();
  out->file = Basename(path);
  // Label -> (lines, whether `self` followed it).
  std::map<std::string, std::pair<std::vector<int>, bool>> labels;
  static const std::regex kRace(R"(RACE\(([A-Za-z0-9_]+)\)( self)?)");
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    std::string rest;
    if (FindDirective(line, "seer-expect:", &rest)) {
      if (rest != "none") {
        *error = out->file + ":" + std::to_string(number) + ": unknown expectation `" + rest + "`";
        return false;
      }
      out->none = true;
    }
    if (FindDirective(line, "seer-std: lossy", &rest)) out->std_lossy = rest.empty() ? "lossy" : rest;
    if (FindDirective(line, "seer-std: known-failure", &rest))
      out->std_known_failure = rest.empty() ? "known failure" : rest;
    if (FindDirective(line, "seer-after-race:", &rest) || FindDirective(line, "seer-relaxed-race:", &rest) ||
        FindDirective(line, "seer-known-failure:", &rest)) {
      const size_t space = rest.find(' ');
      if (space == std::string::npos) {
        *error = out->file + ":" + std::to_string(number) + ": a directive needs a name and a reason";
        return false;
      }
      auto& table = line.find("seer-known-failure:") == std::string::npos ? out->writer_ordered : out->known_failures;
      table[rest.substr(0, space)] = rest.substr(space + 1);
    }
    const size_t comment = line.find("//");
    if (comment == std::string::npos) continue;
    const std::string text = line.substr(comment);
    for (std::sregex_iterator it(text.begin(), text.end(), kRace), end; it != end; ++it) {
      auto& entry = labels[(*it)[1].str()];
      entry.first.push_back(number);
      entry.second = entry.second || (*it)[2].matched;
      out->marked_lines.insert(number);
    }
  }
  for (const auto& [label, entry] : labels) {
    const auto& [lines, self] = entry;
    if (lines.size() == 1 && self) {
      out->pairs.push_back({label, lines[0], lines[0]});
    } else if (lines.size() == 2 && !self) {
      out->pairs.push_back({label, lines[0], lines[1]});
    } else {
      *error = out->file + ": label `" + label + "` is on " + std::to_string(lines.size()) + " line(s)" +
               (self ? " with `self`" : "") + "; a pair is two lines, or one line with `self`";
      return false;
    }
  }
  for (const auto& [label, why] : out->writer_ordered) {
    if (!labels.count(label)) {
      *error = out->file + ": seer-after-race or seer-relaxed-race names `" + label + "`, which marks no line";
      return false;
    }
  }
  if (out->none == !out->pairs.empty()) {
    *error = out->file + (out->none ? ": both `seer-expect: none` and RACE markers"
                                    : ": neither `seer-expect: none` nor a RACE marker");
    return false;
  }
  return true;
}

}  // namespace seer::test
