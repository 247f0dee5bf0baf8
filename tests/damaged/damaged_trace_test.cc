// Damaged trace files: 10,000 random mutations (byte flips, truncations, swapped,
// zeroed and copied pages) of recorded, imported and written traces, each opened
// and read to the end in this process through TraceReader, and a few hundred of
// them given to the real `seer info` and `seer analyze`. Each must end in either
// the original's data (the damage hit bytes no reader uses) or one Corruption
// naming the file: never a crash, a hang or a different answer.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cctype>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "seer/trace.h"
#include "tests/damaged/mutate.h"
#include "tests/damaged/read_trace.h"
#include "tests/support/temp_dir.h"
#include "tests/support/test_scale.h"

namespace seer::test {
namespace {

namespace fs = std::filesystem;

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

void WriteFile(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
}

struct RunResult {
  int code = -1;  // exit status, or 128 + signal
  std::string out, err;
};

// `seer analyze`'s report without its last section, the engines' work counts
// with their timings.
std::string WithoutTimings(const std::string& report) { return report.substr(0, report.find("\nanalysis work:")); }

// Runs a shell command line with a time limit: a hang ends as exit 124.
RunResult Shell(const std::string& cmd, const std::string& dir) {
  const std::string out = dir + "/.out", err = dir + "/.err";
  const int status = std::system(("timeout -s KILL 60 " + cmd + " >" + out + " 2>" + err + " </dev/null").c_str());
  RunResult r;
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  r.out = ReadFile(out);
  r.err = ReadFile(err);
  return r;
}

class DamagedTraceTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    // Memory-backed when there is one: the test writes 10,000 files.
    std::string pattern =
        ((fs::is_directory("/dev/shm") ? fs::path("/dev/shm") : fs::temp_directory_path()) / "seer-damaged-XXXXXX")
            .string();
    if (mkdtemp(pattern.data()) == nullptr) pattern = test::MakeTempDir("seer-damaged");
    dir_ = new std::string(pattern);
    seeds_ = new std::vector<std::string>();
    // Two recorded traces (in-process recording needs no privileges), an
    // imported STD trace, and a written one with many small chunks, so that the
    // chunks table has branch pages and overflow runs.
    for (const char* program : {"race_global_rw", "norace_condvar"}) {
      const std::string path = *dir_ + "/" + program + ".seer";
      RunResult r = Shell(std::string(SEER_BINARY) + " record -q --sync=inproc -o " + path + " -- " +
                              SEER_RACE_PROGRAMS + "/" + program,
                          *dir_);
      if (r.code == 0)
        seeds_->push_back(path);
      else
        ADD_FAILURE() << "seer record " << program << " exited " << r.code << ": " << r.err;
    }
    const std::string imported = *dir_ + "/names.seer";
    RunResult r = Shell(std::string(SEER_BINARY) + " import " + SEER_TEST_DATA + "/names.std -o " + imported, *dir_);
    if (r.code == 0)
      seeds_->push_back(imported);
    else
      ADD_FAILURE() << "seer import exited " << r.code << ": " << r.err;
    const std::string written = *dir_ + "/chunks.seer";
    Status s = WriteManyChunks(written);
    if (s.ok())
      seeds_->push_back(written);
    else
      ADD_FAILURE() << s.ToString();
  }
  static void TearDownTestSuite() {
    fs::remove_all(*dir_);
    delete dir_;
    delete seeds_;
  }

  static std::string* dir_;
  static std::vector<std::string>* seeds_;
};

std::string* DamagedTraceTest::dir_ = nullptr;
std::vector<std::string>* DamagedTraceTest::seeds_ = nullptr;

// Every seed reads back whole: the baseline the mutations are compared with.
TEST_F(DamagedTraceTest, SeedsAreIntact) {
  ASSERT_EQ(seeds_->size(), 4u);
  for (const std::string& seed : *seeds_) {
    TraceDigest digest;
    Status s = ReadWholeTrace(seed, &digest);
    EXPECT_TRUE(s.ok()) << s.ToString();
    EXPECT_GT(digest.events, 0u) << seed;
  }
}

// 10,000 mutations read in this process: each is the original's data or one
// Corruption naming the file.
TEST_F(DamagedTraceTest, TenThousandMutationsInProcess) {
  ASSERT_FALSE(seeds_->empty());
  const int kMutations = Iterations(10000);  // tests/support/test_scale.h
  const std::string path = *dir_ + "/mutant.seer";
  std::mt19937_64 rng(20261125);
  std::map<std::string, int> outcomes;  // mutation kind + result, for the log
  std::map<std::string, int> reasons;   // refusals by message, digits dropped
  int intact = 0, refused = 0;
  double slowest = 0;
  for (int i = 0; i < kMutations; ++i) {
    const std::string& seed = (*seeds_)[i % seeds_->size()];
    static std::map<std::string, std::pair<std::string, TraceDigest>> originals;
    auto it = originals.find(seed);
    if (it == originals.end()) {
      TraceDigest d;
      ASSERT_TRUE(ReadWholeTrace(seed, &d).ok());
      it = originals.emplace(seed, std::make_pair(ReadFile(seed), d)).first;
    }
    std::string bytes = it->second.first;
    const std::string kind = Mutate(&bytes, &rng);
    WriteFile(path, bytes);
    const auto start = std::chrono::steady_clock::now();
    TraceDigest digest;
    Status s = ReadWholeTrace(path, &digest);
    slowest = std::max(slowest, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    const std::string what = "mutation " + std::to_string(i) + " (" + kind + ") of " + seed;
    if (s.ok()) {
      ++intact;
      ++outcomes[kind + " intact"];
      EXPECT_EQ(digest, it->second.second) << what << ": read without error but not as the original";
    } else {
      ++refused;
      ++outcomes[kind + " refused"];
      EXPECT_EQ(s.code(), Status::Code::kCorruption) << what << ": " << s.ToString();
      EXPECT_EQ(s.message().rfind(path + ": ", 0), 0u)
          << what << ": the message does not start with the file: " << s.ToString();
      EXPECT_EQ(s.message().find('\n'), std::string::npos) << what << ": " << s.ToString();
      std::string reason;
      for (char ch : s.message().substr(path.size() + 2))
        if (!std::isdigit(static_cast<unsigned char>(ch))) reason += ch;
      ++reasons[reason.substr(0, 90)];
    }
    if (::testing::Test::HasFailure()) break;
  }
  for (const auto& [k, n] : outcomes) std::printf("  %-24s %d\n", k.c_str(), n);
  std::printf("  refusals by message (digits dropped):\n");
  for (const auto& [reason, n] : reasons) std::printf("  %5d  %s\n", n, reason.c_str());
  std::printf("  %d intact, %d refused; slowest read %.3f s\n", intact, refused, slowest);
  EXPECT_EQ(intact + refused, kMutations);
  // Both outcomes occur: the mutations reach the structure and spare some of it.
  EXPECT_GT(refused, kMutations / 4);
  EXPECT_GT(intact, 0);
  EXPECT_LT(slowest, 5.0) << "a damaged file took long to refuse";
}

// Two hundred through the real binaries: exit 0 with the original's output,
// or exit 2 with one line naming the file.
TEST_F(DamagedTraceTest, MutationsThroughTheBinary) {
  ASSERT_FALSE(seeds_->empty());
  const int kMutations = Iterations(200);
  const std::string path = *dir_ + "/bin.seer";
  std::mt19937_64 rng(4242);
  std::map<std::string, std::string> info_out, analyze_out;
  const std::string info = std::string(SEER_BINARY) + " info ";
  const std::string analyze = std::string(SEER_BINARY) + " analyze ";
  for (const std::string& seed : *seeds_) {
    RunResult a = Shell(info + seed, *dir_), b = Shell(analyze + seed, *dir_);
    ASSERT_EQ(a.code, 0) << a.err;
    ASSERT_EQ(b.code, 0) << b.err;
    // Outputs name the file: compare them with the mutant's name in its place.
    WriteFile(path, ReadFile(seed));
    info_out[seed] = Shell(info + path, *dir_).out;
    analyze_out[seed] = WithoutTimings(Shell(analyze + path, *dir_).out);
  }
  int refused = 0;
  for (int i = 0; i < kMutations; ++i) {
    const std::string& seed = (*seeds_)[i % seeds_->size()];
    std::string bytes = ReadFile(seed);
    const std::string kind = Mutate(&bytes, &rng);
    WriteFile(path, bytes);
    const bool use_info = i % 2 == 0;
    RunResult r = Shell((use_info ? info : analyze) + path, *dir_);
    const std::string what =
        std::string(use_info ? "info" : "analyze") + " on mutation " + std::to_string(i) + " (" + kind + ") of " + seed;
    if (r.code == 0) {
      EXPECT_EQ(use_info ? r.out : WithoutTimings(r.out), use_info ? info_out[seed] : analyze_out[seed])
          << what << ": exit 0 but a different answer";
    } else {
      ++refused;
      ASSERT_EQ(r.code, 2) << what << ": " << r.err;
      EXPECT_EQ(r.err.rfind("seer: ", 0), 0u) << what << ": " << r.err;
      EXPECT_NE(r.err.find(path + ": "), std::string::npos) << what << ": " << r.err;
      EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << what << ": not one line: " << r.err;
    }
    if (::testing::Test::HasFailure()) break;
  }
  std::printf("  %d of %d refused\n", refused, kMutations);
  EXPECT_GT(refused, kMutations / 4);
}

}  // namespace
}  // namespace seer::test
