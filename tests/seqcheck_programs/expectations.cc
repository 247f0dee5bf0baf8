#include "expectations.h"

#include <fstream>
#include <regex>
#include <sstream>

#include "tests/support/program_suite.h"

namespace seer::test {
namespace {

std::vector<std::string> Words(const std::string& s) {
  std::istringstream in(s);
  std::vector<std::string> words;
  for (std::string w; in >> w;) words.push_back(w);
  return words;
}

const std::set<std::string> kPatterns = {"read-write-read", "write-write-read", "read-write-write", "write-read-write"};

}  // namespace

bool ParseProgramExpectations(const std::string& path, ProgramExpectations* out, std::string* error) {
  std::ifstream in(path);
  if (!in) {
    *error = "cannot open " + path;
    return false;
  }
  *out = ProgramExpectations();
  out->file = Basename(path);
  std::map<std::string, ExpectedDeadlock> deadlocks;
  std::map<std::string, ExpectedAtomicity> atomicity;
  // Marker lines seen per label, checked against the declarations at the end.
  std::map<std::string, std::vector<std::pair<std::string, int>>> deadlock_marks, atomicity_marks;
  static const std::regex kMark(
      R"((DEADLOCK|ATOMICITY)\(([A-Za-z0-9_]+)\)((?: +(?:held|blocked|first|remote|second))+))");
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    const std::string where = out->file + ":" + std::to_string(number) + ": ";
    std::string rest;
    if (FindDirective(line, "seer-record:", &rest)) {
      for (const std::string& mode : Words(rest)) {
        if (mode != "ebpf" && mode != "inproc") {
          *error = where + "unknown record mode `" + mode + "` (ebpf or inproc)";
          return false;
        }
        out->record_modes.push_back(mode);
      }
    }
    if (FindDirective(line, "seer-expect:", &rest)) {
      if (rest != "none") {
        *error = where + "unknown expectation `" + rest + "`";
        return false;
      }
      out->none = true;
    }
    if (FindDirective(line, "seer-deadlock:", &rest)) {
      const std::vector<std::string> w = Words(rest);
      static const std::regex kThreads(R"(threads=([2-9]|[1-9][0-9]+))");
      if (w.size() != 2 || !std::regex_match(w[1], kThreads)) {
        *error = where + "expected `seer-deadlock: <label> threads=<k>` with k >= 2";
        return false;
      }
      deadlocks[w[0]] = {w[0], std::stoi(w[1].substr(8)), {}, {}};
    }
    if (FindDirective(line, "seer-atomicity:", &rest)) {
      const std::vector<std::string> w = Words(rest);
      if (w.size() != 2 || !kPatterns.count(w[1])) {
        *error = where + "expected `seer-atomicity: <label> <pattern>` with one of the four unserializable patterns";
        return false;
      }
      atomicity[w[0]] = {w[0], w[1], 0, 0, 0};
    }
    for (const char* key : {"seer-known-failure:", "seer-known-false-positive:"}) {
      if (!FindDirective(line, key, &rest)) continue;
      const size_t space = rest.find(' ');
      if (space == std::string::npos) {
        *error = where + "`" + key + "` needs a label and a reason";
        return false;
      }
      auto& table = std::string(key) == "seer-known-failure:" ? out->known_failures : out->known_false_positives;
      table[rest.substr(0, space)] = rest.substr(space + 1);
    }
    const size_t comment = line.find("//");
    if (comment == std::string::npos) continue;
    const std::string text = line.substr(comment);
    for (std::sregex_iterator it(text.begin(), text.end(), kMark), end; it != end; ++it) {
      auto& marks = (*it)[1].str() == "DEADLOCK" ? deadlock_marks : atomicity_marks;
      for (const std::string& role : Words((*it)[3].str())) marks[(*it)[2].str()].push_back({role, number});
    }
  }

  for (const auto& [label, marks] : deadlock_marks) {
    auto d = deadlocks.find(label);
    if (d == deadlocks.end()) {
      *error = out->file + ": DEADLOCK(" + label + ") without `seer-deadlock: " + label + " threads=<k>`";
      return false;
    }
    for (const auto& [role, number] : marks) {
      if (role != "held" && role != "blocked") {
        *error = out->file + ":" + std::to_string(number) + ": a DEADLOCK marker is `held` or `blocked`";
        return false;
      }
      (role == "held" ? d->second.held_lines : d->second.blocked_lines).insert(number);
    }
  }
  for (auto& [label, d] : deadlocks) {
    if (d.held_lines.empty() || d.blocked_lines.empty()) {
      *error = out->file + ": deadlock `" + label + "` needs `held` and `blocked` lines";
      return false;
    }
    out->deadlocks.push_back(d);
  }
  for (const auto& [label, marks] : atomicity_marks) {
    auto a = atomicity.find(label);
    if (a == atomicity.end()) {
      *error = out->file + ": ATOMICITY(" + label + ") without `seer-atomicity: " + label + " <pattern>`";
      return false;
    }
    for (const auto& [role, number] : marks) {
      int* slot = role == "first"    ? &a->second.first_line
                  : role == "remote" ? &a->second.remote_line
                  : role == "second" ? &a->second.second_line
                                     : nullptr;
      if (slot == nullptr || *slot != 0) {
        *error = out->file + ":" + std::to_string(number) +
                 ": an ATOMICITY label has one `first`, one `remote` "
                 "and one `second` line";
        return false;
      }
      *slot = number;
    }
  }
  for (auto& [label, a] : atomicity) {
    if (a.first_line == 0 || a.remote_line == 0 || a.second_line == 0) {
      *error = out->file + ": atomicity violation `" + label + "` needs `first`, `remote` and `second` lines";
      return false;
    }
    out->atomicity.push_back(a);
  }
  for (const auto* table : {&out->known_failures, &out->known_false_positives}) {
    for (const auto& [label, why] : *table) {
      if (!deadlocks.count(label) && !atomicity.count(label)) {
        *error = out->file + ": known failure or false positive for undeclared label `" + label + "`";
        return false;
      }
      if (out->known_failures.count(label) && out->known_false_positives.count(label)) {
        *error = out->file + ": `" + label + "` is both a known failure and a known false positive";
        return false;
      }
    }
  }
  if (out->record_modes.empty()) {
    *error = out->file + ": no `seer-record:` line (ebpf, inproc or both)";
    return false;
  }
  if (out->none == (!out->deadlocks.empty() || !out->atomicity.empty())) {
    *error = out->file + ": a program says `seer-expect: none` or declares findings, not both nor neither";
    return false;
  }
  return true;
}

}  // namespace seer::test
