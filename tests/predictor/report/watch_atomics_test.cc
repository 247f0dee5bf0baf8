// SetAsideAtomicWatchHits (predictor/report/watch_atomics.h) and the DWARF
// look-up behind it (Symbolizer::IsAtomicAt), on real binaries: globals that
// are atomic as a whole (std::atomic, C11 _Atomic, through a typedef and a
// qualifier), atomic members of a struct and elements of an array of
// atomics or of structs, against plain globals and plain members beside them.
// The programs are built non-PIE, so their link addresses are the run-time
// ones and `nm` gives them.
#include "predictor/report/watch_atomics.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <string>

#include "predictor/symbolize/symbolizer.h"
#include "store/build_id.h"
#include "tests/support/temp_dir.h"

namespace seer::predictor {
namespace {

const std::string kPrograms = SEER_REPORT_PROGRAMS;

class WatchAtomicsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = test::MakeTempDir("seer-watch-atomics");
    ASSERT_FALSE(dir_.empty()) << "cannot make a temporary directory";
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  // Builds `source` with `compiler` -O0 -g -no-pie; its symbols' addresses in symbols_.
  void Build(const std::string& compiler, const std::string& source) {
    binary_ = dir_ + "/prog";
    ASSERT_EQ(std::system((compiler + " -O0 -g -no-pie " + kPrograms + "/" + source + " -o " + binary_).c_str()), 0);
    FILE* nm = popen(("nm " + binary_).c_str(), "r");
    ASSERT_NE(nm, nullptr);
    char line[512];
    while (fgets(line, sizeof line, nm) != nullptr) {
      unsigned long long address = 0;
      char type = 0;
      char name[400];
      if (sscanf(line, "%llx %c %399s", &address, &type, name) == 3) symbols_[name] = address;
    }
    pclose(nm);
  }

  uint64_t Address(const std::string& symbol) {
    EXPECT_TRUE(symbols_.count(symbol)) << symbol;
    return symbols_[symbol];
  }

  // Runs SetAsideAtomicWatchHits over one watch pair at each address; the
  // addresses whose pair was kept.
  std::vector<uint64_t> Kept(const std::vector<uint64_t>& addresses, double* set_aside_hits) {
    ModuleInfo m;
    m.path = binary_;
    m.build_id = store::ReadBuildId(binary_);
    m.base = 0x400000;  // non-PIE: the first PT_LOAD, file offset 0
    m.size = 0x10000000;
    Symbolizer symbolizer({m}, SymbolizerOptions());
    Findings f;
    RaceResult r;
    r.engine = "watch";
    for (uint64_t a : addresses) {
      RacePair p;
      p.first = EventRef{1, 0, 0x401000 + a % 64, EventKind::kRead, a, 4};
      p.second = EventRef{2, kThreadNotSeen, 0, EventKind::kWrite, a, 4};
      p.occurrences = 3;
      r.pairs.push_back(p);
    }
    r.racy_events = 6 * addresses.size();
    f.races.push_back(r);
    f.stats.push_back({"watch", {{"caught races", 0}}});
    SetAsideAtomicWatchHits(symbolizer, &f);
    std::vector<uint64_t> kept;
    for (const RacePair& p : f.races[0].pairs) kept.push_back(p.first.object);
    EXPECT_EQ(f.races[0].racy_events, 6 * kept.size());
    *set_aside_hits = -1;
    for (const auto& [name, value] : f.stats[0].counters)
      if (name == "on atomic variables (DWARF), not races") *set_aside_hits = value;
    return kept;
  }

  std::string dir_, binary_;
  std::map<std::string, uint64_t> symbols_;
};

TEST_F(WatchAtomicsTest, CxxAtomicsAreSetAsidePlainBytesAreKept) {
  Build("g++", "atomic_globals.cc");
  const uint64_t mixed = Address("mixed"), mixed_array = Address("mixed_array");
  // struct Mixed { long plain; std::atomic<int> counter; int after; }: 16 bytes.
  const std::vector<uint64_t> atomic = {Address("whole_atomic"), mixed + 8, Address("atomic_array") + 8,
                                        mixed_array + 16 + 8};
  const std::vector<uint64_t> plain = {Address("plain_global"), mixed, mixed + 12, mixed_array + 16};
  std::vector<uint64_t> all = atomic;
  all.insert(all.end(), plain.begin(), plain.end());
  double hits = 0;
  EXPECT_EQ(Kept(all, &hits), plain);
  EXPECT_EQ(hits, 3.0 * atomic.size());
}

TEST_F(WatchAtomicsTest, C11AtomicsThroughTypedefsAndQualifiers) {
  Build("gcc", "atomic_globals_c.c");
  double hits = 0;
  const uint64_t plain = Address("c_plain");
  EXPECT_EQ(Kept({Address("c_atomic"), Address("c_typedef_atomic"), plain}, &hits), std::vector<uint64_t>{plain});
  EXPECT_EQ(hits, 6.0);
}

// Not a global of a module with debug information: nothing to tell, kept.
TEST_F(WatchAtomicsTest, UnknownAddressesAreKept) {
  Build("gcc", "atomic_globals_c.c");
  double hits = 0;
  EXPECT_EQ(Kept({0x7f0000001000}, &hits), std::vector<uint64_t>{0x7f0000001000});
  EXPECT_EQ(hits, 0.0);
}

}  // namespace
}  // namespace seer::predictor
