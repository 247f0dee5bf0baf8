// `seer analyze` and `seer merge` restart themselves with glibc's heap on huge
// pages (cli/heap_settings.h): the variable they add, that a user's own setting
// stands, and, on the built binary, that the running command's heap asks the
// kernel for huge pages. (Its environment, /proc/PID/environ, cannot tell:
// glibc rewrites GLIBC_TUNABLES in place as it reads it: "a:b" reads "a".)
#include "cli/heap_settings.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <malloc.h>
#include <signal.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cctype>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "tests/support/cli_test_util.h"

extern char** environ;

namespace seer::cli {
namespace {

#if defined(__SANITIZE_ADDRESS__)
constexpr bool kSanitizerMalloc = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
constexpr bool kSanitizerMalloc = true;
#else
constexpr bool kSanitizerMalloc = false;
#endif
#else
constexpr bool kSanitizerMalloc = false;
#endif

TEST(TunablesWithHugePagesTest, AddsHugePagesToWhatIsSet) {
  EXPECT_EQ(TunablesWithHugePages(nullptr), "glibc.malloc.hugetlb=1");
  EXPECT_EQ(TunablesWithHugePages(""), "glibc.malloc.hugetlb=1");
  EXPECT_EQ(TunablesWithHugePages("glibc.malloc.arena_max=2"), "glibc.malloc.arena_max=2:glibc.malloc.hugetlb=1");
}

TEST(TunablesWithHugePagesTest, TheUsersOwnSettingStands) {
  EXPECT_EQ(TunablesWithHugePages("glibc.malloc.hugetlb=0"), "");
  EXPECT_EQ(TunablesWithHugePages("glibc.malloc.arena_max=2:glibc.malloc.hugetlb=2"), "");
}

TEST(TunablesWithHugePagesTest, OnlyTheCommandsThatBuildWindows) {
  EXPECT_TRUE(BuildsWindows("analyze"));
  EXPECT_TRUE(BuildsWindows("merge"));
  EXPECT_FALSE(BuildsWindows("record"));
  EXPECT_FALSE(BuildsWindows("daemon"));
  EXPECT_FALSE(BuildsWindows("info"));
}

class HeapRestartTest : public test::TempDirTest {
 protected:
  std::string comm_;  // the running command's name (/proc/PID/comm)
  static bool WriteTo(const std::string& fifo, const std::string& text) {
    const int fd = open(fifo.c_str(), O_WRONLY | O_NONBLOCK);
    if (fd < 0) return false;
    const bool wrote = write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
    close(fd);
    return wrote;
  }
  static bool ReadFrom(const std::string& fifo, std::string* text) {
    const int fd = open(fifo.c_str(), O_RDONLY);
    if (fd < 0) return false;
    char buffer[4096];
    ssize_t n;
    while ((n = read(fd, buffer, sizeof buffer)) > 0) text->append(buffer, static_cast<size_t>(n));
    close(fd);
    return n == 0;
  }
  // Skips the test, loudly, where glibc would not ask for huge pages anyway.
  void SetUp() override {
    TempDirTest::SetUp();
    if (kSanitizerMalloc)
      GTEST_SKIP() << "SKIPPED: a sanitizer build's malloc is not glibc's (the release build runs this)";
    const std::string mode = test::ReadFile("/sys/kernel/mm/transparent_hugepage/enabled");
    if (mode.find("[madvise]") == std::string::npos)
      GTEST_SKIP() << "SKIPPED: transparent_hugepage is not \"madvise\" here (" << mode
                   << "): glibc asks for no huge pages, so there is nothing to see";
  }
  // The flags of the process's heap mapping (/proc/PID/smaps' VmFlags of
  // [heap]): "hg" when glibc asked for huge pages there (MADV_HUGEPAGE).
  static std::string HeapFlags(pid_t pid) {
    const std::string smaps = test::ReadFile("/proc/" + std::to_string(pid) + "/smaps");
    std::string flags = "<no heap>", name;
    size_t at = 0;
    while (at < smaps.size()) {
      size_t end = smaps.find('\n', at);
      if (end == std::string::npos) end = smaps.size();
      const std::string line = smaps.substr(at, end - at);
      if (!line.empty() && std::isxdigit(static_cast<unsigned char>(line[0])) && line.find('-') < line.find(' '))
        name = line.substr(line.find_last_of(' ') + 1);
      else if (line.rfind("VmFlags:", 0) == 0 && name == "[heap]")
        flags = line.substr(8);
      at = end + 1;
    }
    return flags;
  }
  static bool AsksForHugePages(const std::string& flags) { return flags.find(" hg ") != std::string::npos; }

  // Starts `seer ARGS...` with GLIBC_TUNABLES set to `tunables` (null: unset)
  // and reads its heap's flags while it waits to open a fifo (the restart, if
  // any, is over by then: it happens first thing); then lets it go with
  // `release` (which opens the fifo's other end) and returns its exit code
  // and the flags.
  std::string HeapFlagsOfRunning(std::vector<std::string> args, const char* tunables,
                                 const std::function<bool()>& release, int* code) {
    std::vector<std::string> env;
    for (char** e = environ; *e != nullptr; ++e)
      if (std::string(*e).rfind("GLIBC_TUNABLES=", 0) != 0) env.push_back(*e);
    if (tunables != nullptr) env.push_back(std::string("GLIBC_TUNABLES=") + tunables);
    args.insert(args.begin(), SEER_BINARY);
    std::vector<char*> argv, envp;
    for (std::string& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    for (std::string& e : env) envp.push_back(e.data());
    envp.push_back(nullptr);
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0);
    pid_t pid = 0;
    const int spawned = posix_spawn(&pid, SEER_BINARY, &actions, nullptr, argv.data(), envp.data());
    posix_spawn_file_actions_destroy(&actions);
    EXPECT_EQ(spawned, 0);
    if (spawned != 0) return "";
    // Wait (bounded) until it blocks in open(fifo): the kernel's
    // wait_for_partner, its wait channel.
    std::string found = "<not read>";  // not blocked in time
    for (int tries = 0; tries < 500; ++tries) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
      const std::string wchan = test::ReadFile("/proc/" + std::to_string(pid) + "/wchan");
      if (wchan.find("partner") == std::string::npos) continue;
      found = HeapFlags(pid);
      comm_ = test::ReadFile("/proc/" + std::to_string(pid) + "/comm");
      break;
    }
    if (!release()) kill(pid, SIGKILL);
    int status = 0;
    waitpid(pid, &status, 0);
    *code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    return found;
  }
};

// `seer merge` waits to read its part from a fifo; then reads what is no part.
TEST_F(HeapRestartTest, MergeRunsWithHugePages) {
  const std::string fifo = Path("part-0.json");
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  int code = 0;
  const std::string flags = HeapFlagsOfRunning(
      {"merge", fifo}, nullptr, [&] { return WriteTo(fifo, "not a part\n"); }, &code);
  EXPECT_TRUE(AsksForHugePages(flags)) << flags;
  EXPECT_EQ(code, 2);  // the bad part, as without the restart
}

// `seer analyze` reads its trace (a regular file) and waits to write its
// report to a fifo; then writes it, whole.
class AnalyzeRestartTest : public HeapRestartTest {
 protected:
  void SetUp() override {
    HeapRestartTest::SetUp();
    if (IsSkipped()) return;
    trace_ = Path("g.seer");
    const auto r = Seer("gen --events 2000 --threads 2 --locks 2 --vars 5 --seed 1 -o " + trace_);
    ASSERT_EQ(r.code, 0) << r.err;
    const auto one = Seer("analyze " + trace_ + " --format json -o " + Path("one.json"));
    ASSERT_EQ(one.code, 0) << one.err;
    fifo_ = Path("report.json");
    ASSERT_EQ(mkfifo(fifo_.c_str(), 0600), 0);
  }
  // The heap's flags of `seer analyze` run with GLIBC_TUNABLES=`tunables`.
  std::string HeapFlagsWith(const char* tunables) {
    int code = -1;
    std::string report;
    const std::string found = HeapFlagsOfRunning(
        {"analyze", trace_, "--format", "json", "-o", fifo_}, tunables, [&] { return ReadFrom(fifo_, &report); },
        &code);
    EXPECT_EQ(code, 0);
    EXPECT_TRUE(report == test::ReadFile(Path("one.json"))) << "the report differs from seer analyze's";
    return found;
  }
  std::string trace_, fifo_;
};

TEST_F(AnalyzeRestartTest, AsksForHugePagesBesideTheUsersTunables) {
  const std::string flags = HeapFlagsWith("glibc.malloc.arena_max=2");
  EXPECT_TRUE(AsksForHugePages(flags)) << flags;
  EXPECT_EQ(comm_, "seer\n");  // ps and top name it as before, not "exe"
}

TEST_F(AnalyzeRestartTest, AUsersHugePageSettingStands) {
  const std::string flags = HeapFlagsWith("glibc.malloc.hugetlb=0");
  EXPECT_FALSE(AsksForHugePages(flags)) << flags;
  EXPECT_NE(flags, "<no heap>");
}

TEST(UserSetArenasTest, EitherVariableSays) {
  EXPECT_FALSE(UserSetArenas(nullptr, nullptr));
  EXPECT_FALSE(UserSetArenas("", "glibc.malloc.hugetlb=1"));
  EXPECT_TRUE(UserSetArenas("4", nullptr));
  EXPECT_TRUE(UserSetArenas(nullptr, "glibc.malloc.hugetlb=1:glibc.malloc.arena_max=8"));
}

// Whether a block that a new thread allocates comes from glibc's main heap,
// in a child process (the setting is the whole process's): 1 yes, 0 no, 2 the
// child had heaps besides the main one before its thread started (threads
// that ran before the fork left theirs: nothing to tell then). glibc marks a
// block of another heap in its chunk's size word (NON_MAIN_ARENA, 0x4).
int ThreadAllocatesFromMainHeap(bool one_heap) {
  const pid_t pid = fork();
  if (pid == 0) {
    unsetenv("MALLOC_ARENA_MAX");
    unsetenv("GLIBC_TUNABLES");
    char* xml = nullptr;
    size_t size = 0;
    FILE* out = open_memstream(&xml, &size);
    malloc_info(0, out);
    fclose(out);
    const bool only_main = std::string(xml).find("<heap nr=\"1\"") == std::string::npos;
    free(xml);
    if (!only_main) _exit(2);
    if (one_heap) OneHeapForAllThreads();
    bool main_heap = false;
    std::thread([&] {
      void* block = malloc(100);
      // The chunk's size word, just before the block (volatile: the compiler
      // sees a read before what malloc returned).
      const auto* size_word =
          reinterpret_cast<const volatile size_t*>(reinterpret_cast<uintptr_t>(block) - sizeof(size_t));
      main_heap = (*size_word & 0x4) == 0;
      free(block);
    }).join();
    _exit(main_heap ? 1 : 0);
  }
  int status = 0;
  if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status)) return -1;
  return WEXITSTATUS(status);
}

TEST(OneHeapForAllThreadsTest, ANewThreadAllocatesFromTheMainHeap) {
  if (kSanitizerMalloc)
    GTEST_SKIP() << "SKIPPED: a sanitizer build's malloc is not glibc's (the release build runs this)";
  const int without = ThreadAllocatesFromMainHeap(false);
  if (without == 2)
    GTEST_SKIP() << "SKIPPED: this process ran threads before this test, whose heaps a new thread may take; "
                    "run it in a process of its own (ctest does)";
  EXPECT_EQ(without, 0);  // glibc's default: a heap of its own
  EXPECT_EQ(ThreadAllocatesFromMainHeap(true), 1);
}

}  // namespace
}  // namespace seer::cli
