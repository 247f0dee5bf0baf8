// `seer analyze --shard I/N` and `seer merge` as the built binary runs them:
// the merged report is `seer analyze`'s byte for byte in every format that
// has no time in it, parts are 0600, and bad parts exit with 2 and one line.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <string>

#include "tests/support/cli_test_util.h"

namespace seer::cli {
namespace {

using test::ReadFile;
using test::WriteFile;

class MergeCommandTest : public test::TempDirTest {
 protected:
  void SetUp() override {
    TempDirTest::SetUp();
    trace_ = Path("g.seer");
    const auto r = Seer("gen --events 20000 --threads 4 --locks 3 --vars 20 --locations 60 --seed 7 -o " + trace_);
    ASSERT_EQ(r.code, 0) << r.err;
  }
  // Shards 0..n-1 of `options` into part-I.json; returns the parts' paths.
  std::string Shards(int n, const std::string& options) {
    std::string parts;
    for (int i = 0; i < n; ++i) {
      const std::string part = Path("part-" + std::to_string(i) + ".json");
      const auto r = Seer("analyze " + trace_ + " --shard " + std::to_string(i) + "/" + std::to_string(n) + " " +
                          options + " -o " + part);
      EXPECT_EQ(r.code, 0) << r.err;
      EXPECT_EQ(r.out, "");
      parts += " " + part;
    }
    return parts;
  }
  void ExpectInputError(const test::RunResult& r, const std::string& what) {
    EXPECT_EQ(r.code, 2) << r.err;
    const auto lines = r.ErrLines();
    ASSERT_EQ(lines.size(), 1u) << r.err;
    EXPECT_EQ(lines[0].rfind("seer: ", 0), 0u) << lines[0];
    EXPECT_NE(lines[0].find(what), std::string::npos) << lines[0];
  }
  std::string trace_;
};

TEST_F(MergeCommandTest, MergedReportsAreOneRunsReports) {
  const std::string options = "--seqcheck-window 3000 --deadlock-max-checks 30";
  const std::string parts = Shards(3, options);
  for (const char* format : {"text", "json", "sarif"}) {
    SCOPED_TRACE(format);
    const auto one = Seer("analyze " + trace_ + " " + options + " --format " + format);
    ASSERT_EQ(one.code, 0) << one.err;
    const auto merged = Seer("merge" + parts + " --format " + format);
    ASSERT_EQ(merged.code, 0) << merged.err;
    EXPECT_TRUE(merged.out == one.out) << "the merged report differs";
    EXPECT_EQ(merged.err, "");
  }
  // -o and --fail-on-findings as in analyze.
  const auto one = Seer("analyze " + trace_ + " " + options + " --fail-on-findings -o " + Path("one.txt"));
  const auto merged = Seer("merge" + parts + " --fail-on-findings -o " + Path("merged.txt"));
  EXPECT_EQ(merged.code, one.code);
  EXPECT_EQ(ReadFile(Path("merged.txt")), ReadFile(Path("one.txt")));
  // The chosen analyses make the text report list what lockset alone gives, as in analyze.
  const std::string chosen = Shards(2, "-a lockset,hb,deadlock");
  const auto a = Seer("analyze " + trace_ + " -a lockset,hb,deadlock");
  EXPECT_TRUE(Seer("merge" + chosen).out == a.out);
}

TEST_F(MergeCommandTest, PartsAreOnlyTheOwnersToRead) {
  Shards(1, "");
  struct stat st;
  ASSERT_EQ(stat(Path("part-0.json").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
}

TEST_F(MergeCommandTest, BadShardsAndPartsExitWithTwo) {
  ExpectInputError(Seer("analyze " + trace_ + " --shard 3/3 -o " + Path("p")), "--shard '3/3': expected I/N");
  ExpectInputError(Seer("analyze " + trace_ + " --shard 0/2"), "--shard writes a partial result");
  ExpectInputError(Seer("analyze " + trace_ + " --shard 0/2 --confirm-races -o " + Path("p")),
                   "--confirm-races cannot be sharded");
  const std::string parts = Shards(3, "");
  ExpectInputError(Seer("merge " + Path("part-0.json") + " " + Path("part-2.json")), "missing shards: 1/3");
  ExpectInputError(Seer("merge" + parts + " " + Path("part-1.json")), "are both shard 1/3");
  const std::string text = ReadFile(Path("part-1.json"));
  WriteFile(Path("cut.json"), text.substr(0, text.size() / 3));
  ExpectInputError(Seer("merge " + Path("part-0.json") + " " + Path("cut.json") + " " + Path("part-2.json")),
                   "cut.json: not a partial analysis result (not JSON: a damaged or cut file?)");
  ExpectInputError(Seer("merge " + trace_), "g.seer: not a partial analysis result");
  ExpectInputError(Seer("merge " + Path("none.json")), "none.json");
  // The trace moved: --trace names it.
  std::filesystem::rename(trace_, Path("moved.seer"));
  ExpectInputError(Seer("merge" + parts), "the trace the parts were made of");
  const auto r = Seer("merge" + parts + " --trace " + Path("moved.seer"));
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find(Path("moved.seer")), std::string::npos);
}

}  // namespace
}  // namespace seer::cli
