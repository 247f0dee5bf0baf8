// Helpers shared by the command-line tests: a fresh directory per test, file
// reading and writing, and running the built `seer` binary.
#pragma once

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "seer/trace.h"
#include "tests/support/temp_dir.h"
#include "tests/support/trace_io.h"

namespace seer::test {

namespace fs = std::filesystem;

inline std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

inline void WriteFile(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary) << bytes;
}

inline std::string DataFile(const std::string& name) { return std::string(SEER_TEST_DATA) + "/" + name; }

struct RunResult {
  int code = -1;
  std::string out;
  std::string err;
  // The lines of stderr.
  std::vector<std::string> ErrLines() const {
    std::vector<std::string> lines;
    size_t start = 0;
    while (start < err.size()) {
      size_t nl = err.find('\n', start);
      if (nl == std::string::npos) nl = err.size();
      lines.push_back(err.substr(start, nl - start));
      start = nl + 1;
    }
    return lines;
  }
};

// A fresh directory for each test, removed afterwards.
class TempDirTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = test::MakeTempDir(std::string("seer-cli-test-") + info->test_suite_name() + "-" + info->name());
    ASSERT_FALSE(dir_.empty()) << "cannot make a temporary directory";
  }
  void TearDown() override {
    if (!dir_.empty()) fs::remove_all(dir_);
  }
  std::string Path(const std::string& name) const { return (dir_ / name).string(); }

  // Runs `seer <args>` (args are passed to the shell as written: keep paths
  // free of spaces) with stdout and stderr captured.
  RunResult Seer(const std::string& args) const {
    const std::string out = Path(".stdout"), err = Path(".stderr");
    const std::string cmd = std::string(SEER_BINARY) + " " + args + " >" + out + " 2>" + err + " </dev/null";
    const int status = std::system(cmd.c_str());
    RunResult r;
    r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    r.out = ReadFile(out);
    r.err = ReadFile(err);
    return r;
  }

  fs::path dir_;
};

}  // namespace seer::test
