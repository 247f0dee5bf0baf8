// CallSiteFilter on this process's own mappings: libc's code and the loader's
// are told apart from the program's, and maps read after the target exited
// (a zombie shows none) leave what was known in place.
#include "recorder/ebpf/call_site_filter.h"

#include <dlfcn.h>
#include <gtest/gtest.h>
#include <unistd.h>

namespace seer::recorder {
namespace {

class CallSiteFilterTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(ReadProcMaps(getpid(), &maps_).ok());
    const Mapping* libc = FindMappedFile(maps_, "libc.so");
    ASSERT_NE(libc, nullptr);
    libc_ = libc->path;
    // libc's own code, not a PLT stub in this executable.
    libc_fn_ = reinterpret_cast<uint64_t>(dlsym(RTLD_DEFAULT, "getpid"));
    ASSERT_NE(libc_fn_, 0u);
  }

  std::vector<Mapping> maps_;
  std::string libc_;
  uint64_t libc_fn_ = 0;
  const uint64_t own_fn_ = reinterpret_cast<uint64_t>(&ReadProcMaps);
};

TEST_F(CallSiteFilterTest, TellsLibcCodeFromTheProgramsOwn) {
  CallSiteFilter f;
  EXPECT_FALSE(f.ready());
  f.Reset(libc_, maps_);
  ASSERT_TRUE(f.ready());
  EXPECT_TRUE(f.IsLibcCode(libc_fn_));
  EXPECT_TRUE(f.IsLibcInternalFutex(libc_fn_));
  EXPECT_FALSE(f.IsLibcCode(own_fn_));
  EXPECT_FALSE(f.IsLoaderCall(own_fn_));
  // A futex call through libc's syscall() is the program's own.
  const uint64_t syscall_fn = reinterpret_cast<uint64_t>(dlsym(RTLD_DEFAULT, "syscall"));
  ASSERT_NE(syscall_fn, 0u);
  EXPECT_TRUE(f.IsLibcCode(syscall_fn + 4));
  EXPECT_FALSE(f.IsLibcInternalFutex(syscall_fn + 4));
}

TEST_F(CallSiteFilterTest, MapsWithoutLibcLeaveItAsItWas) {
  CallSiteFilter f;
  f.Reset(libc_, {});  // not mapped yet
  EXPECT_FALSE(f.ready());
  f.Reset(libc_, maps_);
  ASSERT_TRUE(f.ready());
  // The periodic refresh of a target that has just exited: its maps are empty.
  f.Reset(libc_, {});
  ASSERT_TRUE(f.ready());
  EXPECT_TRUE(f.IsLibcInternalFutex(libc_fn_));
  EXPECT_FALSE(f.IsLibcCode(own_fn_));
}

}  // namespace
}  // namespace seer::recorder
