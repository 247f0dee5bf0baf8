// Helpers for tests that build a program with the seer wrappers, record it with
// the seer binary and read its report: shell commands, temporary folders, the
// lines a source marks, and file:line look-ups in the JSON report.
#pragma once

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

namespace seer::testing {

// Runs a shell command; its exit status, or -1.
inline int Shell(const std::string& command) {
  const int rc = std::system(command.c_str());
  return rc == -1 || !WIFEXITED(rc) ? -1 : WEXITSTATUS(rc);
}

inline std::string MakeTempDir(const std::string& tag) {
  std::string pattern = (std::filesystem::temp_directory_path() / ("seer-" + tag + "-XXXXXX")).string();
  return mkdtemp(pattern.data()) == nullptr ? std::string() : pattern;
}

// The 1-based line of `source` that ends with "// <marker>", 0 if none.
inline int MarkedLine(const std::string& source, const std::string& marker) {
  std::ifstream in(source);
  std::string line;
  const std::string tail = "// " + marker;
  for (int n = 1; std::getline(in, line); ++n)
    if (line.size() >= tail.size() && line.compare(line.size() - tail.size(), tail.size(), tail) == 0) return n;
  return 0;
}

// "file.c:12" for a JSON event or frame with `file` and `line`; "?" if unknown.
inline std::string Where(const nlohmann::json& j) {
  if (!j.contains("file") || !j["file"].is_string() || !j["line"].is_number()) return "?";
  return std::filesystem::path(j["file"].get<std::string>()).filename().string() + ":" +
         std::to_string(j["line"].get<int>());
}

inline nlohmann::json ReadJson(const std::string& path) {
  std::ifstream in(path);
  return nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false);
}

}  // namespace seer::testing
