// CallSiteFilter on this process's own mappings: libc's code and the loader's
// are told apart from the program's, and maps read while the target exits
// (part of its mappings, or none for a zombie) leave what was known in place.
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
  f.Add(libc_, maps_);
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
  f.Add(libc_, {});  // not mapped yet
  EXPECT_FALSE(f.ready());
  f.Add(libc_, maps_);
  ASSERT_TRUE(f.ready());
  // The periodic refresh of a target that has just exited: its maps are empty.
  f.Add(libc_, {});
  ASSERT_TRUE(f.ready());
  EXPECT_TRUE(f.IsLibcInternalFutex(libc_fn_));
  EXPECT_FALSE(f.IsLibcCode(own_fn_));
}

// Linux reads /proc/PID/maps without stopping an exiting process's unmapping:
// a look can show libc with the loader already gone (seen on 6.18, where the
// loader's lock at exit then leaked into RecordTest.ExecFromAThreadEndsTheTrace).
TEST_F(CallSiteFilterTest, AnExitingProcesssPartialMapsForgetNothing) {
  const Mapping* loader = FindMappedFile(maps_, "ld-linux");
  ASSERT_NE(loader, nullptr) << "this test is dynamically linked";
  uint64_t loader_code = 0, loader_data = 0;
  std::vector<Mapping> without_loader;
  for (const auto& m : maps_) {
    if (m.path != loader->path)
      without_loader.push_back(m);
    else if (m.executable)
      loader_code = m.start;
    else
      loader_data = m.start;
  }
  ASSERT_NE(loader_code, 0u);
  ASSERT_NE(loader_data, 0u);
  CallSiteFilter f;
  f.Add(libc_, maps_);
  ASSERT_TRUE(f.IsLoaderCall(loader_code));
  ASSERT_TRUE(f.IsLoaderLock(loader_data));
  f.Add(libc_, without_loader);
  EXPECT_TRUE(f.IsLoaderCall(loader_code));
  EXPECT_TRUE(f.IsLoaderLock(loader_data));
  EXPECT_TRUE(f.IsLibcInternalFutex(libc_fn_));
  EXPECT_FALSE(f.IsLoaderCall(own_fn_));
}

}  // namespace
}  // namespace seer::recorder
