// Shared by the suites that build small programs, record and analyse them with the
// `seer` binary, and compare the report with markers in each program's source
// (tests/races, tests/seqcheck_programs): source listing, marker directives, and a
// scratch directory to run the commands in.
#pragma once

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "tests/support/temp_dir.h"

namespace seer::test {

inline std::string ReadWholeFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

inline std::string Basename(const std::string& path) {
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

// The C and C++ sources (*.c, *.cc) directly in `dir`, by file name, sorted.
inline std::vector<std::string> ListSources(const std::string& dir) {
  std::vector<std::string> names;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    const std::string ext = entry.path().extension().string();
    if (ext == ".c" || ext == ".cc") names.push_back(entry.path().filename().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

// A marker directive `key rest` anywhere on a source line: true when the key is
// there, with the text after it in *rest, trimmed of blanks and a comment's end.
inline bool FindDirective(const std::string& line, const std::string& key, std::string* rest) {
  const size_t at = line.find(key);
  if (at == std::string::npos) return false;
  std::string r = line.substr(at + key.size());
  const size_t begin = r.find_first_not_of(" \t");
  const size_t end = r.find_last_not_of(" \t*/");
  *rest = begin == std::string::npos || end < begin ? "" : r.substr(begin, end - begin + 1);
  return true;
}

// A fresh directory under the system's temporary directory, named after the test
// and this process, removed with the object. Commands run inside it.
class ScratchDir {
 public:
  explicit ScratchDir(const std::string& name) : dir_(MakeTempDir(name)) {
    if (dir_.empty()) {  // nothing a test could do without it
      perror(("cannot make a temporary directory for " + name).c_str());
      std::abort();
    }
  }
  ~ScratchDir() {
    std::error_code ignored;
    if (!dir_.empty()) std::filesystem::remove_all(dir_, ignored);
  }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;

  std::string Path(const std::string& file) const { return (dir_ / file).string(); }

  // Runs a shell command in the directory, stdin from /dev/null; returns its exit
  // code (-1 if it did not exit), with its stdout and stderr in *out.
  int Run(const std::string& command, std::string* out) const {
    const std::string log = Path("command.log");
    const std::string full = "cd " + dir_.string() + " && " + command + " >" + log + " 2>&1 </dev/null";
    const int status = std::system(full.c_str());
    *out = ReadWholeFile(log);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  }

 private:
  std::filesystem::path dir_;
};

}  // namespace seer::test
