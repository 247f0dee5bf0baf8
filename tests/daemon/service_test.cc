// The service's parts on their own: configuration, the windowed writer with a
// clock the test moves, retention, contention from synthetic lock_wait
// events, the analysis of a window, findings merged across windows and the
// Prometheus text.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "daemon/config.h"
#include "daemon/findings_registry.h"
#include "daemon/lock_contention.h"
#include "daemon/metrics.h"
#include "daemon/prometheus_text.h"
#include "daemon/retention.h"
#include "daemon/window_analysis.h"
#include "daemon/window_writer.h"
#include "predictor/analyze.h"
#include "tests/support/temp_dir.h"
#include "tests/support/trace_builder.h"
#include "tests/support/trace_io.h"

namespace seer::daemon {
namespace {

namespace fs = std::filesystem;

class ServiceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = test::MakeTempDir(std::string("seer-service-test-") +
                             ::testing::UnitTest::GetInstance()->current_test_info()->name());
    ASSERT_FALSE(dir_.empty()) << "cannot make a temporary directory";
  }
  void TearDown() override {
    if (!dir_.empty()) fs::remove_all(dir_);
  }
  std::string Path(const std::string& name) const { return (dir_ / name).string(); }
  std::string WriteFile(const std::string& name, const std::string& text) {
    std::ofstream(Path(name)) << text;
    return Path(name);
  }
  fs::path dir_;
};

using test::MakeEvent;

TEST_F(ServiceTest, ConfigFileSetsEveryKey) {
  const std::string path = WriteFile("seer.toml", R"(
listen = "127.0.0.1:9999"
dir = "/var/lib/seer"
window = "5s"
duty = "1s/30s"
analyses = "deadlock,hb"
spool = "64M"
futex_tracepoints = true
[retention]
max_windows = 7
max_age = "2h"
max_size = "64M"
min_free = "1G"
[slurm]
partition = "analysis"
args = ["--time=30", "--mem=8G"]
seer = "/shared/bin/seer"
srun = "/opt/slurm/bin/srun"
[[target]]
name = "memcached"
[[target]]
pid = 42
[[target]]
command = ["./prog", "--flag"]
)");
  ServiceConfig c;
  ASSERT_TRUE(LoadConfigFile(path, &c).ok());
  EXPECT_EQ(c.listen_host, "127.0.0.1");
  EXPECT_EQ(c.listen_port, 9999);
  EXPECT_EQ(c.dir, "/var/lib/seer");
  EXPECT_DOUBLE_EQ(c.window_s, 5);
  EXPECT_DOUBLE_EQ(c.duty_on_s, 1);
  EXPECT_DOUBLE_EQ(c.duty_period_s, 30);
  EXPECT_EQ(c.analyses, "deadlock,hb");
  EXPECT_EQ(c.spool_bytes, 64ull << 20);
  EXPECT_TRUE(c.futex_tracepoints);
  EXPECT_EQ(c.retention.max_windows, 7u);
  EXPECT_DOUBLE_EQ(c.retention.max_age_s, 7200);
  EXPECT_EQ(c.retention.max_bytes, 64ull << 20);
  EXPECT_EQ(c.retention.min_free_bytes, 1ull << 30);
  EXPECT_TRUE(c.slurm.on);
  EXPECT_EQ(c.slurm.partition, "analysis");
  EXPECT_EQ(c.slurm.args, (std::vector<std::string>{"--time=30", "--mem=8G"}));
  EXPECT_EQ(c.slurm.seer, "/shared/bin/seer");
  EXPECT_EQ(c.slurm.srun, "/opt/slurm/bin/srun");
  ASSERT_EQ(c.targets.size(), 3u);
  EXPECT_EQ(c.targets[0].name, "memcached");
  EXPECT_EQ(c.targets[1].pid, 42);
  EXPECT_EQ(c.targets[2].command, (std::vector<std::string>{"./prog", "--flag"}));
  EXPECT_TRUE(ValidateConfig(c).ok());
}

// The example the docs and the systemd unit point at stays a valid config.
TEST_F(ServiceTest, ExampleConfigIsValid) {
  ServiceConfig c;
  Status st = LoadConfigFile(SEER_EXAMPLE_CONFIG, &c);
  ASSERT_TRUE(st.ok()) << st.ToString();
  EXPECT_TRUE(ValidateConfig(c).ok());
  EXPECT_EQ(c.listen_host, "127.0.0.1");
  EXPECT_DOUBLE_EQ(c.duty_on_s, 2);
  EXPECT_DOUBLE_EQ(c.duty_period_s, 60);
  ASSERT_EQ(c.targets.size(), 1u);
  EXPECT_EQ(c.targets[0].name, "memcached");
}

TEST_F(ServiceTest, MalformedConfigNamesFileAndLine) {
  ServiceConfig c;
  Status st = LoadConfigFile(WriteFile("bad.toml", "dir = \"/tmp\"\nwindow = [unclosed\n"), &c);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("bad.toml:2"), std::string::npos) << st.ToString();

  st = LoadConfigFile(WriteFile("typo.toml", "dir = \"/tmp\"\nwindwo = \"5s\"\n"), &c);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("unknown key 'windwo'"), std::string::npos) << st.ToString();

  st = LoadConfigFile(WriteFile("bool.toml", "futex_tracepoints = \"yes\"\n"), &c);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("bool.toml:1: futex_tracepoints: expected true or false"), std::string::npos)
      << st.ToString();

  st = LoadConfigFile(WriteFile("unit.toml", "window = \"5 parsecs\"\n"), &c);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("unit.toml:1: window"), std::string::npos) << st.ToString();

  st = LoadConfigFile(WriteFile("duty.toml", "\nduty = \"5s\"\n"), &c);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("duty.toml:2: duty"), std::string::npos) << st.ToString();

  st = LoadConfigFile(WriteFile("slurm.toml", "[slurm]\npartiton = \"batch\"\n"), &c);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("slurm.toml:2: unknown key 'slurm.partiton' (known: srun, partition, seer, args)"),
            std::string::npos)
      << st.ToString();
  st = LoadConfigFile(WriteFile("args.toml", "[slurm]\nargs = \"--time=5\"\n"), &c);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("args.toml:2: slurm.args: expected an array of strings"), std::string::npos)
      << st.ToString();

  ServiceConfig two;
  two.dir = "/tmp/x";
  two.targets.push_back({42, "memcached", {}});
  EXPECT_FALSE(ValidateConfig(two).ok());
  ServiceConfig none;
  none.dir = "/tmp/x";
  EXPECT_FALSE(ValidateConfig(none).ok());
}

// watch: a share as text or a number, true for the default 2%, false or 0
// for none; anything outside 0.1-50% named with its file and line.
TEST_F(ServiceTest, WatchShareInTheConfig) {
  const std::pair<const char*, double> good[] = {
      {"watch = \"5%\"\n", 5}, {"watch = \"0.5\"\n", 0.5}, {"watch = 3\n", 3}, {"watch = 1.5\n", 1.5},
      {"watch = true\n", 2},   {"watch = false\n", 0},     {"watch = 0\n", 0},
  };
  for (const auto& [text, percent] : good) {
    ServiceConfig c;
    const Status st = LoadConfigFile(WriteFile("watch.toml", text), &c);
    ASSERT_TRUE(st.ok()) << text << st.ToString();
    EXPECT_DOUBLE_EQ(c.watch_percent, percent) << text;
  }
  ServiceConfig c;
  Status st = LoadConfigFile(WriteFile("watch.toml", "dir = \"/tmp\"\nwatch = \"90%\"\n"), &c);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("watch.toml:2: watch"), std::string::npos) << st.ToString();
  EXPECT_NE(st.message().find("give the share of each thread's time, 0.1 to 50 (percent)"), std::string::npos)
      << st.ToString();
  st = LoadConfigFile(WriteFile("watch.toml", "watch = \"lots\"\n"), &c);
  EXPECT_FALSE(st.ok());
}

TEST_F(ServiceTest, DurationsSizesDutyAndListen) {
  double s = 0;
  ASSERT_TRUE(ParseDuration("500ms", &s).ok());
  EXPECT_DOUBLE_EQ(s, 0.5);
  ASSERT_TRUE(ParseDuration("2m", &s).ok());
  EXPECT_DOUBLE_EQ(s, 120);
  EXPECT_FALSE(ParseDuration("-1s", &s).ok());
  EXPECT_FALSE(ParseDuration("ten", &s).ok());
  double on = 0, period = 0;
  ASSERT_TRUE(ParseDutyCycle("2s/60s", &on, &period).ok());
  EXPECT_DOUBLE_EQ(on, 2);
  EXPECT_DOUBLE_EQ(period, 60);
  EXPECT_FALSE(ParseDutyCycle("61s/60s", &on, &period).ok());
  EXPECT_FALSE(ParseDutyCycle("2s", &on, &period).ok());
  ASSERT_TRUE(ParseDutyCycle("continuous", &on, &period).ok());
  EXPECT_EQ(period, 0);
  std::string host;
  int port = 0;
  ASSERT_TRUE(ParseListen("[::1]:8080", &host, &port).ok());
  EXPECT_EQ(host, "::1");
  EXPECT_EQ(port, 8080);
  ASSERT_TRUE(ParseListen(":0", &host, &port).ok());
  EXPECT_EQ(host, "127.0.0.1");
  EXPECT_FALSE(ParseListen("127.0.0.1:99999", &host, &port).ok());
  uint64_t bytes = 0;
  ASSERT_TRUE(ParseSize("2G", &bytes).ok());
  EXPECT_EQ(bytes, 2ull << 30);
  EXPECT_FALSE(ParseSize("2Q", &bytes).ok());
}

TEST_F(ServiceTest, ContentionCountsWaitsOfTheAcquireTheyPrecede) {
  ContentionCounter c;
  c.Add(MakeEvent(1, EventKind::kAcquire, 0x10, 0x100));  // free lock
  c.Add(MakeEvent(1, EventKind::kRelease, 0x10, 0x104));
  c.Add(MakeEvent(2, EventKind::kLockWait, 0x10, 0x200, 5000));  // 5 us
  c.Add(MakeEvent(2, EventKind::kAcquire, 0x10, 0x200));
  c.Add(MakeEvent(2, EventKind::kLockWait, 0x10, 0x200, 3000000));  // 3 ms
  c.Add(MakeEvent(2, EventKind::kAcquire, 0x10, 0x200));
  c.Add(MakeEvent(3, EventKind::kLockWait, 0x20, 0x300, 100));  // a wait for another lock
  c.Add(MakeEvent(3, EventKind::kAcquire, 0x10, 0x300));        // is not this acquire's
  const auto& sites = c.sites();
  ASSERT_EQ(sites.size(), 3u);
  const ContentionStats& free_site = sites.at({0x10, 0x100});
  EXPECT_EQ(free_site.acquisitions, 1u);
  EXPECT_EQ(free_site.contended, 0u);
  const ContentionStats& hot = sites.at({0x10, 0x200});
  EXPECT_EQ(hot.acquisitions, 2u);
  EXPECT_EQ(hot.contended, 2u);
  EXPECT_NEAR(hot.wait_seconds, 0.003005, 1e-12);
  EXPECT_EQ(hot.buckets[1], 1u);  // (1us, 10us]
  EXPECT_EQ(hot.buckets[4], 1u);  // (1ms, 10ms]
  EXPECT_EQ(sites.at({0x10, 0x300}).contended, 0u);
}

TEST_F(ServiceTest, HoldTimesGoToTheSiteThatTookTheLock) {
  ContentionCounter c;
  c.Add(MakeEvent(1, EventKind::kRelease, 0x10, 0x104, 9000));  // taken before the window: no site
  c.Add(MakeEvent(1, EventKind::kAcquire, 0x10, 0x100));
  c.Add(MakeEvent(1, EventKind::kRelease, 0x10, 0x104, 300000));  // held 300 us
  c.Add(MakeEvent(1, EventKind::kAcquire, 0x10, 0x100));
  c.Add(MakeEvent(1, EventKind::kRelease, 0x10, 0x104));  // not measured (aux 0)
  c.Add(MakeEvent(2, EventKind::kAcquire, 0x10, 0x200));
  Event wait_end = MakeEvent(2, EventKind::kCondWaitEnd, 0x90, 0x210, 0x10);  // the cond wait re-takes 0x10
  c.Add(wait_end);
  c.Add(MakeEvent(2, EventKind::kRelease, 0x10, 0x204, 2000));  // held 2 us since the wait returned
  const auto& sites = c.sites();
  const ContentionStats& first = sites.at({0x10, 0x100});
  EXPECT_EQ(first.acquisitions, 2u);
  EXPECT_EQ(first.held, 1u);
  EXPECT_NEAR(first.hold_seconds, 0.0003, 1e-12);
  EXPECT_EQ(first.hold_buckets[3], 1u);  // (100us, 1ms]
  EXPECT_EQ(sites.at({0x10, 0x200}).held, 0u);
  const ContentionStats& after_wait = sites.at({0x10, 0x210});
  EXPECT_EQ(after_wait.acquisitions, 0u);
  EXPECT_EQ(after_wait.held, 1u);
  EXPECT_EQ(after_wait.hold_buckets[1], 1u);  // (1us, 10us]

  // The exposition: a histogram family of its own, next to the waits'.
  WindowAnalysis w;
  for (const auto& [key, stats] : sites) w.contention.push_back({"hot", "f a.c:" + std::to_string(key.second), stats});
  ServiceMetrics metrics;
  metrics.AddWindow(w, 0);
  const std::string text = metrics.Render(LiveStatus(), {});
  EXPECT_NE(text.find("# TYPE seer_lock_hold_seconds histogram\n"), std::string::npos) << text;
  EXPECT_NE(text.find("seer_lock_hold_seconds_bucket{lock=\"hot\",site=\"f a.c:256\",le=\"0.0001\"} 0\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("seer_lock_hold_seconds_bucket{lock=\"hot\",site=\"f a.c:256\",le=\"0.001\"} 1\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("seer_lock_hold_seconds_count{lock=\"hot\",site=\"f a.c:256\"} 1\n"), std::string::npos);
  EXPECT_EQ(text.find("seer_lock_hold_seconds_count{lock=\"hot\",site=\"f a.c:512\"}"), std::string::npos);
}

TEST_F(ServiceTest, AWindowKeepsItsHottestPairsAndFoldsTheRestPerSite) {
  // memcached's shape: very many locks taken at two sites, one of them contended.
  ContentionCounter c;
  for (uint64_t lock = 1; lock <= 500; ++lock) {
    for (uint64_t site : {0x100, 0x200}) {
      c.Add(MakeEvent(1, EventKind::kAcquire, lock, site));
      c.Add(MakeEvent(1, EventKind::kRelease, lock, site + 4, 1000 * lock));  // held longer for higher locks
    }
  }
  c.Add(MakeEvent(2, EventKind::kLockWait, 7, 0x100, 50000));  // the one contended pair: kept first
  c.Add(MakeEvent(2, EventKind::kAcquire, 7, 0x100));
  ASSERT_EQ(c.sites().size(), 1000u);
  const auto folded = c.Folded(kContentionPairsPerWindow);
  ASSERT_EQ(folded.size(), kContentionPairsPerWindow + 2);  // and one folded pair per site
  ContentionStats kept_total, all_total;
  std::map<uint64_t, ContentionStats> other;
  bool contended_kept = false;
  uint64_t lowest_kept_hold = ~uint64_t{0};
  for (const auto& [key, stats] : folded) {
    all_total.Merge(stats);
    if (key.first == kOtherLocks) {
      other[key.second].Merge(stats);
      continue;
    }
    kept_total.Merge(stats);
    if (key.first == 7 && key.second == 0x100)
      contended_kept = stats.contended == 1;
    else
      lowest_kept_hold = std::min<uint64_t>(lowest_kept_hold, key.first);
  }
  EXPECT_TRUE(contended_kept);
  // After the contended one, the 63 pairs held longest: locks 500..470 at both
  // sites, and 469 at the smaller site (ties go to the smaller key).
  static_assert(kContentionPairsPerWindow == 64);
  EXPECT_EQ(lowest_kept_hold, 469u);
  ASSERT_EQ(other.size(), 2u);
  // Nothing lost: the totals are those of every pair.
  EXPECT_EQ(all_total.acquisitions, 1001u);
  EXPECT_EQ(all_total.held, 1000u);
  EXPECT_EQ(all_total.contended, 1u);
  EXPECT_EQ(other[0x100].acquisitions + other[0x200].acquisitions + kept_total.acquisitions, 1001u);
  EXPECT_EQ(other[0x100].held, 500u - 32 - 1);  // 500..469 and 7 kept
  EXPECT_EQ(other[0x200].held, 500u - 31);
  // Fewer pairs than the bound: all of them, none folded.
  ContentionCounter few;
  few.Add(MakeEvent(1, EventKind::kAcquire, 1, 0x100));
  few.Add(MakeEvent(1, EventKind::kAcquire, 2, 0x100));
  EXPECT_EQ(few.Folded(kContentionPairsPerWindow).size(), 2u);
}

TEST_F(ServiceTest, ContentionSeriesAreBoundedOverTheServicesLife) {
  ServiceMetrics metrics;
  ContentionStats one;
  one.acquisitions = 1;
  for (size_t window = 0; window < 3; ++window) {
    WindowAnalysis w;
    for (size_t i = 0; i < kMaxContentionSeries / 2; ++i)
      w.contention.push_back({"lock" + std::to_string(window * kMaxContentionSeries + i), "f a.c:1", one});
    w.contention.push_back({"lock0", "f a.c:1", one});  // a pair seen before keeps its series
    metrics.AddWindow(w, 0);
  }
  const auto series = metrics.Contention();
  EXPECT_EQ(series.size(), kMaxContentionSeries + 1);  // and the site's folded series
  EXPECT_EQ(series.at({"lock0", "f a.c:1"}).acquisitions, 4u);
  // The third window's pairs came after the bound: all folded.
  EXPECT_EQ(series.at({kOtherLocksName, "f a.c:1"}).acquisitions, kMaxContentionSeries / 2);
  uint64_t total = 0;
  for (const auto& [key, s] : series) total += s.acquisitions;
  EXPECT_EQ(total, 3 * (kMaxContentionSeries / 2 + 1));
}

// A fake clock for the windowed writer.
struct Clock {
  double t = 1000;
  std::function<double()> fn() {
    return [this] { return t; };
  }
};

TEST_F(ServiceTest, WindowsAreCutByTimeAndEachIsATraceOfItsOwn) {
  Clock clock;
  std::vector<WindowFile> closed;
  WindowSchedule schedule;
  schedule.window_s = 1;
  WindowedTraceWriter w(
      dir_.string(), "t0", schedule, TraceWriterOptions(), [&](const WindowFile& f) { closed.push_back(f); },
      clock.fn());
  w.AddThread({0, 100, -1, "main"});
  w.AddModule({"/bin/prog", "", 0x400000, 0x1000, 0});
  w.SetName(Namespace::kLock, 0x10, "hot");
  ASSERT_TRUE(w.Append(MakeEvent(0, EventKind::kThreadBegin, 0, 0)).ok());
  ASSERT_TRUE(w.Append(MakeEvent(0, EventKind::kAcquire, 0x10, 0x100)).ok());
  w.AddClockSample(400'000'000);
  clock.t += 1.5;
  w.Tick();
  ASSERT_EQ(closed.size(), 1u);
  EXPECT_TRUE(closed[0].complete);
  EXPECT_EQ(closed[0].events, 2u);
  // The release of a lock acquired in the previous window is left out of this one.
  ASSERT_TRUE(w.Append(MakeEvent(0, EventKind::kRelease, 0x10, 0x104)).ok());
  ASSERT_TRUE(w.Append(MakeEvent(0, EventKind::kAcquire, 0x10, 0x100)).ok());
  ASSERT_TRUE(w.Append(MakeEvent(0, EventKind::kRelease, 0x10, 0x104)).ok());
  w.AddClockSample(1'700'000'000);
  ASSERT_TRUE(w.Close().ok());
  ASSERT_EQ(closed.size(), 2u);
  EXPECT_EQ(closed[1].events, 2u);
  EXPECT_EQ(w.stats().windows_written, 2u);
  EXPECT_EQ(w.stats().unmatched_releases, 1u);
  for (const WindowFile& f : closed) {
    struct stat st;
    ASSERT_EQ(stat(f.path.c_str(), &st), 0);
    EXPECT_EQ(st.st_mode & 0777, 0600u) << f.path;
    std::vector<Event> events;
    TraceInfo info;
    ASSERT_TRUE(test::ReadTrace(f.path, &events, &info).ok()) << f.path;
    EXPECT_TRUE(info.complete);
    ASSERT_EQ(info.threads.size(), 1u);  // the tables are repeated in every window
    EXPECT_EQ(info.threads[0].name, "main");
    EXPECT_EQ(info.modules.size(), 1u);
    // Each window's clock counts from its own opening: 0.4 s into the first,
    // 1.3 s into the second (the recording's 1.7 s less the 0.4 s it opened at).
    ASSERT_EQ(info.clock.size(), 1u) << f.path;
    EXPECT_EQ(info.clock[0].ns, &f == &closed[0] ? 400'000'000u : 1'300'000'000u);
    EXPECT_EQ(info.clock[0].events, 2u);
  }
}

// 10 s windows, on for the first second of every four.
WindowSchedule OneSecondOfFour() {
  WindowSchedule schedule;
  schedule.window_s = 10;
  schedule.duty_on_s = 1;
  schedule.duty_period_s = 4;
  return schedule;
}

TEST_F(ServiceTest, DutyCycleLeavesTheOffPeriodsOut) {
  Clock clock;
  std::vector<WindowFile> closed;
  WindowedTraceWriter w(
      dir_.string(), "t0", OneSecondOfFour(), TraceWriterOptions(), [&](const WindowFile& f) { closed.push_back(f); },
      clock.fn());
  ASSERT_TRUE(w.Append(MakeEvent(0, EventKind::kThreadBegin, 0, 0)).ok());
  clock.t += 1.5;  // off
  w.Tick();
  ASSERT_EQ(closed.size(), 1u);
  EXPECT_FALSE(w.stats().recording);
  ASSERT_TRUE(w.Append(MakeEvent(0, EventKind::kRead, 0x50, 0x10, 8)).ok());
  ASSERT_TRUE(w.Append(MakeEvent(0, EventKind::kRead, 0x50, 0x10, 8)).ok());
  EXPECT_EQ(w.stats().events_skipped, 2u);
  clock.t += 2.7;  // 4.2 s after the start: on again
  w.Tick();
  EXPECT_TRUE(w.stats().recording);
  ASSERT_TRUE(w.Close().ok());
  EXPECT_EQ(closed.size(), 2u);
}

TEST_F(ServiceTest, APausedTargetsWindowDrainsBeforeItCloses) {
  Clock clock;
  std::vector<WindowFile> closed;
  WindowedTraceWriter w(
      dir_.string(), "t0", OneSecondOfFour(), TraceWriterOptions(), [&](const WindowFile& f) { closed.push_back(f); },
      clock.fn());
  w.set_pausable(true);
  EXPECT_TRUE(w.WantsEvents());
  ASSERT_TRUE(w.Append(MakeEvent(0, EventKind::kAcquire, 0x10, 0x100)).ok());
  clock.t += 1.2;  // the on period is over: the target is to pause, the window waits for what is on its way
  w.Tick();
  EXPECT_FALSE(w.WantsEvents());
  EXPECT_TRUE(w.draining());
  EXPECT_TRUE(closed.empty());
  ASSERT_TRUE(w.Append(MakeEvent(0, EventKind::kRelease, 0x10, 0x104)).ok());  // recorded before the pause
  w.EndDrain();
  ASSERT_EQ(closed.size(), 1u);
  EXPECT_EQ(closed[0].events, 2u);
  EXPECT_FALSE(w.draining());
  ASSERT_TRUE(w.Append(MakeEvent(0, EventKind::kAcquire, 0x10, 0x100)).ok());  // off: skipped
  EXPECT_EQ(w.stats().events_skipped, 1u);
  clock.t += 3.0;  // 4.2 s: on again
  w.Tick();
  EXPECT_TRUE(w.WantsEvents());
  // A drain the recording never confirms ends when the next on period begins,
  // 3 s (the off period) after the on period's end at 5 s.
  clock.t = 1005.1;
  w.Tick();
  EXPECT_TRUE(w.draining());
  clock.t = 1007.9;
  w.Tick();
  EXPECT_EQ(closed.size(), 1u);
  clock.t = 1008.05;
  w.Tick();
  EXPECT_EQ(closed.size(), 2u);
  EXPECT_FALSE(w.draining());
  ASSERT_TRUE(w.Close().ok());
}

TEST_F(ServiceTest, ShortOfDiskSpaceRecordingPauses) {
  Clock clock;
  std::vector<WindowFile> closed;
  WindowSchedule schedule;
  schedule.min_free_bytes = ~0ull;  // more than any disk has free
  WindowedTraceWriter w(
      dir_.string(), "t0", schedule, TraceWriterOptions(), [&](const WindowFile& f) { closed.push_back(f); },
      clock.fn());
  EXPECT_TRUE(w.stats().paused_disk);
  EXPECT_FALSE(w.stats().recording);
  ASSERT_TRUE(w.Append(MakeEvent(0, EventKind::kThreadBegin, 0, 0)).ok());
  EXPECT_EQ(w.stats().events_skipped, 1u);
  ASSERT_TRUE(w.Close().ok());
  EXPECT_TRUE(closed.empty());
  EXPECT_TRUE(fs::is_empty(dir_));
}

TEST_F(ServiceTest, RetentionRemovesTheOldestFirst) {
  ASSERT_TRUE(PrepareWindowDir(Path("w")).ok());
  struct stat st;
  ASSERT_EQ(stat(Path("w").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0700u);
  for (int i = 1; i <= 5; ++i)
    std::ofstream(Path("w/window-000000000000" + std::to_string(i) + "-t0.seer")) << std::string(8192, 'x');
  std::ofstream(Path("w/notes.txt")) << "not a window";
  RetentionPolicy policy;
  policy.max_windows = 3;
  policy.max_age_s = 0;
  policy.max_bytes = 0;
  std::vector<std::string> removed;
  WindowDirUsage usage;
  ASSERT_TRUE(EnforceRetention(Path("w"), policy, 0, "", &removed, &usage).ok());
  ASSERT_EQ(removed.size(), 2u);
  EXPECT_NE(removed[0].find("0001-t0"), std::string::npos);
  EXPECT_NE(removed[1].find("0002-t0"), std::string::npos);
  EXPECT_EQ(usage.windows, 3u);
  EXPECT_TRUE(fs::exists(Path("w/notes.txt")));
  // By size: the three left take 3 x 8 KiB on disk; keep 10 KiB.
  policy.max_windows = 0;
  policy.max_bytes = 10 << 10;
  removed.clear();
  ASSERT_TRUE(EnforceRetention(Path("w"), policy, 0, "", &removed, &usage).ok());
  EXPECT_EQ(usage.windows, 1u);
  EXPECT_TRUE(fs::exists(Path("w/window-0000000000005-t0.seer")));
}

// A window with a lock-order inversion between two threads and a contended lock.
std::string WriteInversionWindow(const std::string& path, uint64_t pc_base) {
  std::unique_ptr<TraceWriter> w;
  EXPECT_TRUE(TraceWriter::Create(path, TraceWriterOptions(), &w).ok());
  w->AddThread({0, 100, -1, "main"});
  w->AddThread({1, 101, 0, "t1"});
  w->AddThread({2, 102, 0, "t2"});
  w->SetName(Namespace::kLock, 1, "first");
  w->SetName(Namespace::kLock, 2, "second");
  w->SetName(Namespace::kLock, 3, "hot");
  // Both threads run at once (nothing orders their critical sections): a
  // schedule exists in which each holds its first lock and wants the other's.
  const std::vector<Event> events = {
      MakeEvent(0, EventKind::kThreadBegin, 0, 0),        MakeEvent(0, EventKind::kFork, 1, pc_base + 1),
      MakeEvent(0, EventKind::kFork, 2, pc_base + 7),     MakeEvent(1, EventKind::kThreadBegin, 0, 0),
      MakeEvent(1, EventKind::kAcquire, 1, pc_base + 2),  MakeEvent(1, EventKind::kAcquire, 2, pc_base + 3),
      MakeEvent(1, EventKind::kRelease, 2, pc_base + 4),  MakeEvent(1, EventKind::kRelease, 1, pc_base + 5),
      MakeEvent(1, EventKind::kThreadEnd, 0, 0),          MakeEvent(2, EventKind::kThreadBegin, 0, 0),
      MakeEvent(2, EventKind::kAcquire, 2, pc_base + 8),  MakeEvent(2, EventKind::kAcquire, 1, pc_base + 9),
      MakeEvent(2, EventKind::kRelease, 1, pc_base + 10), MakeEvent(2, EventKind::kRelease, 2, pc_base + 11),
      MakeEvent(0, EventKind::kAcquire, 3, pc_base + 12), MakeEvent(2, EventKind::kLockWait, 3, pc_base + 13, 2000000),
      MakeEvent(0, EventKind::kRelease, 3, pc_base + 14), MakeEvent(2, EventKind::kAcquire, 3, pc_base + 13),
      MakeEvent(2, EventKind::kRelease, 3, pc_base + 15), MakeEvent(2, EventKind::kThreadEnd, 0, 0),
      MakeEvent(0, EventKind::kJoin, 1, pc_base + 6),     MakeEvent(0, EventKind::kJoin, 2, pc_base + 16),
  };
  for (const Event& e : events) EXPECT_TRUE(w->Append(e).ok());
  EXPECT_TRUE(w->Close().ok());
  return path;
}

TEST_F(ServiceTest, AWindowsFindingsAndContention) {
  std::vector<const predictor::EngineSpec*> engines;
  ASSERT_TRUE(predictor::SelectEngines("deadlock", &engines).ok());
  WindowAnalysis a;
  Status st = AnalyzeWindow(WriteInversionWindow(Path("w1.seer"), 0x1000), engines, &a);
  ASSERT_TRUE(st.ok()) << st.ToString();
  EXPECT_EQ(a.events, 22u);
  EXPECT_EQ(a.by_kind[static_cast<int>(EventKind::kLockWait)], 1u);
  ASSERT_EQ(a.findings.size(), 1u);
  EXPECT_EQ(a.findings[0].kind, "deadlock");
  EXPECT_NE(a.findings[0].summary.find("first"), std::string::npos) << a.findings[0].summary;
  EXPECT_NE(a.findings[0].report.find("deadlock"), std::string::npos);
  bool hot_contended = false;
  for (const ContentionRecord& c : a.contention)
    if (c.lock == "hot" && c.stats.contended == 1) hot_contended = true;
  EXPECT_TRUE(hot_contended);

  // The same bug in a later window is the same finding; another one is not.
  WindowAnalysis again, other;
  EXPECT_TRUE(a.findings[0].html.empty());  // not asked for
  // Asked for by signature (the service asks for findings that have none yet).
  std::vector<std::string> asked;
  ASSERT_TRUE(
      AnalyzeWindow(WriteInversionWindow(Path("w2.seer"), 0x1000), engines, &again, [&](const std::string& signature) {
        asked.push_back(signature);
        return true;
      }).ok());
  ASSERT_EQ(asked.size(), 1u);
  EXPECT_EQ(asked[0], a.findings[0].signature);
  ASSERT_EQ(again.findings.size(), 1u);
  EXPECT_NE(again.findings[0].html.find("<html"), std::string::npos);
  EXPECT_NE(again.findings[0].html.find("deadlock"), std::string::npos);
  ASSERT_TRUE(AnalyzeWindow(WriteInversionWindow(Path("w3.seer"), 0x9000), engines, &other).ok());
  FindingsRegistry registry;
  registry.Merge(a.findings, 100);
  registry.Merge(again.findings, 110);
  std::vector<MergedFinding> all = registry.All();
  ASSERT_EQ(all.size(), 1u);
  EXPECT_EQ(all[0].windows, 2u);
  EXPECT_EQ(all[0].first_seen, 100);
  EXPECT_EQ(all[0].last_seen, 110);
  EXPECT_EQ(all[0].id, FindingsRegistry::IdOf(a.findings[0].signature));
  EXPECT_TRUE(registry.HasHtml(a.findings[0].signature));  // from the second window; the first had none
  EXPECT_NE(all[0].html.find("<html"), std::string::npos);
  EXPECT_TRUE(all[0].latest.html.empty());  // kept once, not per record
  registry.Merge(other.findings, 120);
  EXPECT_EQ(registry.All().size(), 2u);
  EXPECT_NE(registry.Json().find("\"windows\": 2"), std::string::npos) << registry.Json();

  ServiceMetrics metrics;
  metrics.AddWindow(a, 0.5);
  metrics.AddWindow(again, 0.5);
  LiveStatus live;
  live.process_cpu_seconds = 3;
  live.targets.push_back({"name prog", "preload", true, 2, 0, 0, false, 1});
  const std::string text = metrics.Render(live, registry.All());
  EXPECT_NE(text.find("seer_events_recorded_total{kind=\"lock_wait\"} 2\n"), std::string::npos) << text;
  EXPECT_NE(text.find("seer_findings{kind=\"deadlock\",engine=\"deadlock\"} 2\n"), std::string::npos) << text;
  EXPECT_NE(text.find("seer_lock_contended_acquisitions_total{lock=\"hot\""), std::string::npos) << text;
  // Cumulative buckets: both 2 ms waits are under 10 ms, none under 1 ms.
  EXPECT_NE(text.find(",le=\"0.001\"} 0\n"), std::string::npos) << text;
  EXPECT_NE(text.find(",le=\"0.01\"} 2\n"), std::string::npos) << text;
  // The analysis runs in child processes: the daemon's own CPU time is all the recorder's.
  EXPECT_NE(text.find("seer_recorder_cpu_seconds_total 3\n"), std::string::npos) << text;
  EXPECT_NE(text.find("# TYPE seer_lock_wait_seconds histogram\n"), std::string::npos);
}

TEST_F(ServiceTest, PrometheusLabelValuesAreEscaped) {
  PrometheusText p;
  p.Family("x_total", "counter", "help");
  p.Sample("x_total", {{"site", "f \"a\\b\"\nc"}}, 1.5);
  EXPECT_EQ(p.text(), "# HELP x_total help\n# TYPE x_total counter\nx_total{site=\"f \\\"a\\\\b\\\"\\nc\"} 1.5\n");
}

}  // namespace
}  // namespace seer::daemon
