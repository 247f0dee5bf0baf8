// seer record --watch end to end, through the seer binary on real processes
// (runtime/watchpoints.h): a statistics counter bumped outside its lock is
// caught in the act, with both threads, both accesses and the variable; its
// race-free twins (the counter under the lock, a relaxed atomic) never give a
// race although they are sampled as often; and the watches live with what the
// program does (fork, its own SIGTRAP handler). On a machine whose hypervisor
// never fires the debug registers (this project's CI) the software
// watchpoints of the seer-cc hooks do the catching, and the summary says so.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "tests/runtime/watch_test_util.h"
#include "tests/support/cli_test_util.h"

namespace seer::test {
namespace {

// How many times `needle` occurs in `text`.
int Count(const std::string& text, const std::string& needle) {
  int n = 0;
  for (size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) ++n;
  return n;
}

// A fresh directory and the seer binary (tests/support/cli_test_util.h).
class WatchTest : public TempDirTest {
 protected:
  // Runs `seer args`; its output in out_ and err_, its exit status returned.
  int Run(const std::string& args) {
    const RunResult r = Seer(args);
    out_ = r.out;
    err_ = r.err;
    return r.code;
  }

  // Records `program args` with `options`; the watch analysis' report in report_,
  // seer record's stderr in record_err_, the program's stdout in program_out_.
  void RecordAndAnalyze(const std::string& options, const std::string& program, const std::string& args) {
    const std::string trace = Path("trace.seer");
    fs::remove(trace);
    ASSERT_EQ(Run("record " + options + " -o " + trace + " -- " + WatchProgram(program) + " " + args), 0) << err_;
    record_err_ = err_;
    program_out_ = out_;
    ASSERT_EQ(Run("analyze --analysis watch " + trace), 0) << err_;
    report_ = out_;
  }

  std::string out_, err_;
  std::string record_err_, program_out_, report_;
};

TEST_F(WatchTest, SyncNoneWithoutWatchIsRefused) {
  EXPECT_EQ(Run("record --sync=none -o " + Path("t.seer") + " -- " + WatchProgram("watch_counter_gcc") + " 10"), 2);
  EXPECT_NE(err_.find("--sync=none records only the races --watch catches: add --watch"), std::string::npos) << err_;
  EXPECT_FALSE(fs::exists(Path("t.seer")));
}

TEST_F(WatchTest, BadWatchShareIsRefused) {
  EXPECT_EQ(Run("record --watch=90 -o " + Path("t.seer") + " -- " + WatchProgram("watch_counter_gcc") + " 10"), 2);
  EXPECT_NE(err_.find("--watch='90': give the share of each thread's time, 0.1 to 50 (percent)"), std::string::npos)
      << err_;
}

// The samples come through seer's runtime: a statically linked program
// cannot take it.
TEST_F(WatchTest, WatchNeedsTheRuntime) {
  EXPECT_EQ(Run("record --sync=none --watch -o " + Path("t.seer") + " -- " + std::string(SEER_TEST_PROGRAMS) +
                "/lock_inversion_static"),
            2);
  EXPECT_NE(err_.find("--watch samples through seer's runtime, which needs a dynamically linked program or a "
                      "seer-cc/seer-c++ build; "),
            std::string::npos)
      << err_;
  EXPECT_FALSE(fs::exists(Path("t.seer")));
}

// A seer-cc build's hooks take its samples: the timer of --sync=preload is refused.
TEST_F(WatchTest, PreloadedSamplerIsRefusedForASeerCcBuild) {
  EXPECT_EQ(
      Run("record --sync=preload --watch -o " + Path("t.seer") + " -- " + WatchProgram("watch_counter_gcc") + " 10"),
      2);
  EXPECT_NE(err_.find("is a seer-cc build, whose hooks take the samples: record it with --sync=none --watch"),
            std::string::npos)
      << err_;
}

// The racy counter, gcc and clang builds: caught in most runs (the default
// budget holds each thread about 2% of its time), each report naming both
// threads, both accesses at the counter's line, and the global.
TEST_F(WatchTest, RacyCounterIsCaughtInTheAct) {
  for (const char* program : {"watch_counter_gcc", "watch_counter_clang"}) {
    int caught_runs = 0;
    const int kRuns = 3;
    for (int run = 0; run < kRuns; ++run) {
      RecordAndAnalyze("--sync=none --watch", program, "1000");
      EXPECT_NE(record_err_.find("seer record: watch: 4 watches at once"), std::string::npos) << record_err_;
      EXPECT_GT(NumberAfter(record_err_, "% of each thread's time: "), 0) << "no sample taken:\n" << record_err_;
      if (report_.find("WARNING: data race (caught by watch") == std::string::npos) continue;
      ++caught_runs;
      EXPECT_NE(report_.find("proven: caught in the act (watchpoint)"), std::string::npos) << report_;
      EXPECT_NE(report_.find("Location is global 'counter' of size 8"), std::string::npos) << report_;
      EXPECT_NE(report_.find("watch_counter.c:43"), std::string::npos) << "the counter's line:\n" << report_;
      // Two different threads: the sampled one and the one caught.
      EXPECT_NE(report_.find("by thread thread-1"), std::string::npos) << report_;
      EXPECT_NE(report_.find("by thread thread-2"), std::string::npos) << report_;
      EXPECT_EQ(report_.find("'guarded'"), std::string::npos) << "the locked variable reported:\n" << report_;
    }
    std::printf("  %s: caught in %d of %d runs\n", program, caught_runs, kRuns);
    EXPECT_GE(caught_runs, 2) << program;
  }
}

// The same counter in an unmodified build (gcc -O1 -g), sampled by the
// preloaded runtime's CPU-time timer: no hook sees the other thread, so
// without the debug registers the race is told by the value changing while
// the sampled access is held. Each report names the sampled thread, its access
// at the counter's line, and the global; the writer is "not seen". The debug
// registers are turned off (SEER_WATCH_HARDWARE=0): some machines of CI's kind
// deliver them, and a watchpoint would name the writer.
TEST_F(WatchTest, UnmodifiedRacyCounterIsCaughtByTheSampler) {
  ASSERT_EQ(setenv("SEER_WATCH_HARDWARE", "0", 1), 0);
  struct Unset {
    ~Unset() { unsetenv("SEER_WATCH_HARDWARE"); }
  } unset;
  int caught_runs = 0;
  const int kRuns = 3;
  for (int run = 0; run < kRuns; ++run) {
    RecordAndAnalyze("--sync=none --watch", "watch_counter_plain", "1000");
    EXPECT_NE(record_err_.find("seer record: watch: sampled by a CPU-time timer every 1.56 ms of a thread's time"),
              std::string::npos)
        << record_err_;
    EXPECT_NE(
        record_err_.find("the value compared only (no hardware watchpoints: turned off by SEER_WATCH_HARDWARE=0)"),
        std::string::npos)
        << record_err_;
    EXPECT_GT(NumberAfter(record_err_, "% of each thread's time: "), 3) << "too few samples:\n" << record_err_;
    if (report_.find("WARNING: data race (caught by watch") == std::string::npos) continue;
    ++caught_runs;
    EXPECT_NE(report_.find("proven: caught in the act (the value changed while the access was held)"),
              std::string::npos)
        << report_;
    EXPECT_NE(report_.find("by a thread not seen"), std::string::npos) << report_;
    EXPECT_NE(report_.find("Location is global 'counter' of size 8"), std::string::npos) << report_;
    EXPECT_NE(report_.find("watch_counter.c:43"), std::string::npos) << "the counter's line:\n" << report_;
    EXPECT_EQ(report_.find("'guarded'"), std::string::npos) << "the locked variable reported:\n" << report_;
    // The machine-readable formats: the writer has no thread, no stack, no location.
    ASSERT_EQ(Run("analyze --analysis watch --format json " + Path("trace.seer")), 0) << err_;
    EXPECT_NE(out_.find("\"thread\": null,\n            \"thread_name\": \"not seen\""), std::string::npos) << out_;
    ASSERT_EQ(Run("analyze --analysis watch --format sarif " + Path("trace.seer")), 0) << err_;
    EXPECT_NE(out_.find("by not seen at an unseen access (the value changed)"), std::string::npos) << out_;
    EXPECT_EQ(Count(out_, "\"the held access: write"), 2) << "one location and one related location:\n" << out_;
  }
  std::printf("  watch_counter_plain: caught in %d of %d runs\n", caught_runs, kRuns);
  EXPECT_GE(caught_runs, 2);
}

// With the synchronisation recorded too (the preloaded runtime's usual
// recording), the caught race sits among the sync events and the predicted
// analyses run beside it. The workers spend most of their time in the
// runtime's lock wrappers, where 9 ticks in 10 land and nothing of the
// program's own is there to decode: the sampler's walk follows the thread
// back into its code and samples the access it comes to. That gives nearly all
// the samples here (50 to 70 in 4 s on an idle machine, 40 to 65 of them found
// by such walks, a race caught in 5 to 10); before the walk followed a thread
// out of the runtime, a run took 5 to 10 samples, none of them by a walk, and a
// daemon's window sometimes none.
TEST_F(WatchTest, UnmodifiedProgramWithSyncRecorded) {
  RecordAndAnalyze("--sync=preload --watch=10", "watch_counter_plain", "4000");
  EXPECT_NE(record_err_.find("sampled by a CPU-time timer"), std::string::npos) << record_err_;
  EXPECT_GT(NumberAfter(record_err_, " walks to the next access found "), 10)
      << "too few samples found by walking back from the runtime:\n"
      << record_err_;
  ASSERT_EQ(Run("info " + Path("trace.seer")), 0) << err_;
  EXPECT_NE(out_.find("sync mode:    preload"), std::string::npos) << out_;
  EXPECT_GT(NumberAfter(out_, "  acquire "), 1000) << out_;
  // A sample is an event of the trace when it caught a race.
  EXPECT_GT(NumberAfter(out_, "  watch_sample "), 0) << out_;
}

// The twins are sampled as much and never give a race: under the lock the
// other thread cannot touch the bytes during a hold; a relaxed atomic is known
// to the hooks (never sampled), and in an unmodified build its plain moves are
// set aside by their DWARF type (predictor/report/watch_atomics.h, whose own
// test proves the look-up). The unmodified builds are sampled less than the
// hooked ones: about 15 to 30 samples a second on a quiet machine, a third of
// that beside the sanitizer build's recorder. The unmodified configuration
// reader under its lock is sampled by walks alone (some 15 a second): its loop
// is arithmetic, where a tick finds no access, and the walk to the next one
// goes through the call of the lock (in libc) that comes before the load.
TEST_F(WatchTest, RaceFreeTwinsGiveNoRace) {
  const std::pair<const char*, long> programs[] = {
      {"watch_counter_locked", 10},      {"watch_counter_atomic", 10},     {"watch_counter_plain_locked", 3},
      {"watch_counter_plain_atomic", 3}, {"watch_config_locked", 10},      {"watch_config_atomic", 10},
      {"watch_config_plain_locked", 3},  {"watch_config_plain_atomic", 3},
  };
  for (const auto& [program, min_samples] : programs) {
    for (int run = 0; run < 2; ++run) {
      RecordAndAnalyze("--sync=none --watch", program, "1000");
      EXPECT_GT(NumberAfter(record_err_, "% of each thread's time: "), min_samples) << program << ": too few samples:\n"
                                                                                    << record_err_;
      EXPECT_EQ(Count(report_, "WARNING: data race"), 0) << program << ":\n" << report_;
      EXPECT_NE(report_.find("watch: 0 race pairs"), std::string::npos) << report_;
      EXPECT_NE(program_out_.find("="), std::string::npos) << program_out_;
    }
  }
}

// A configuration word one thread rewrites while workers read it: caught in
// the seer-cc build (the hooks name the writer) and the unmodified one (the
// value changes under a held load). The unmodified reader's loop is
// arithmetic: its samples come from the sampler's walk to the load (some 15
// a run; without the walk, none in most runs).
TEST_F(WatchTest, ConfigurationWordRaceIsCaught) {
  for (const char* program : {"watch_config_gcc", "watch_config_plain"}) {
    int caught_runs = 0;
    const int kRuns = 4;
    for (int run = 0; run < kRuns; ++run) {
      RecordAndAnalyze("--sync=none --watch", program, "1000");
      if (report_.find("WARNING: data race (caught by watch") == std::string::npos) continue;
      ++caught_runs;
      EXPECT_NE(report_.find("Location is global 'config' of size 8"), std::string::npos) << report_;
      EXPECT_NE(report_.find("Serve"), std::string::npos) << "the reader's function:\n" << report_;
    }
    std::printf("  %s: caught in %d of %d runs\n", program, caught_runs, kRuns);
    EXPECT_GE(caught_runs, 2) << program;
  }
}

// The unmodified build's sampler walks (single steps) from a tick that lands
// in arithmetic to the next plain access: the shared heap cell, its address
// read off the live registers, is held and caught. The walk never steps the
// program's pushf (the program would see the trap flag: tf_seen) nor its popf
// (a stray trap would kill it with SIGTRAP: the record would fail).
TEST_F(WatchTest, SamplerWalksToTheNextAccess) {
  int caught_runs = 0;
  long walk_samples = 0;
  const int kRuns = 3;
  for (int run = 0; run < kRuns; ++run) {
    RecordAndAnalyze("--sync=none --watch", "watch_walk_plain", "1000");
    EXPECT_NE(program_out_.find("tf_seen=0 "), std::string::npos) << program_out_;
    // Most ticks find the access by decoding alone; a few walk, some 7 a run.
    walk_samples += std::max(0L, NumberAfter(record_err_, " walks to the next access found "));
    if (report_.find("WARNING: data race (caught by watch") == std::string::npos) continue;
    ++caught_runs;
    EXPECT_NE(report_.find("Work"), std::string::npos) << "the racing function:\n" << report_;
  }
  std::printf("  watch_walk_plain: caught in %d of %d runs, %ld samples found by a walk\n", caught_runs, kRuns,
              walk_samples);
  EXPECT_GE(caught_runs, 2);
  EXPECT_GT(walk_samples, 0) << record_err_;
}

// A forked child has copies of the watch slots' state but not the watches:
// it runs unsampled and ends normally; the parent is watched as before.
TEST_F(WatchTest, ForkedChildRunsUnwatched) {
  RecordAndAnalyze("--sync=none --watch", "watch_counter_gcc", "800 fork");
  EXPECT_NE(program_out_.find("child_done=1"), std::string::npos) << program_out_;
  EXPECT_NE(program_out_.find("child_status=0"), std::string::npos) << program_out_;
  EXPECT_GT(NumberAfter(record_err_, "% of each thread's time: "), 0) << record_err_;
}

// Workers that block every signal: the hooks of a seer-cc build sample and
// catch as before (they need no signal); the unmodified build's timer ticks
// stay pending in them, so they are not sampled, and the program runs as
// without seer (the lock-guarded count is whole rounds of 256).
TEST_F(WatchTest, WorkersThatBlockSignals) {
  RecordAndAnalyze("--sync=none --watch", "watch_counter_gcc", "1000 blocked");
  EXPECT_GT(NumberAfter(record_err_, "% of each thread's time: "), 0) << record_err_;
  EXPECT_NE(report_.find("WARNING: data race (caught by watch"), std::string::npos) << report_;
  RecordAndAnalyze("--sync=none --watch", "watch_counter_plain", "500 blocked");
  // The main thread's timer ticks only while it runs, which is at its start.
  EXPECT_LE(NumberAfter(record_err_, "% of each thread's time: "), 1) << record_err_;
  EXPECT_GE(NumberAfter(record_err_, "% of each thread's time: "), 0) << record_err_;
  const long guarded = NumberAfter(program_out_, "guarded=");
  EXPECT_GT(guarded, 0) << program_out_;
  EXPECT_EQ(guarded % 256, 0) << program_out_;
}

// Raw clone() threads (sharing the main thread's TLS block) have no timer of
// their own: they are not sampled, and run and end as without seer, while the
// main thread keeps its timer.
TEST_F(WatchTest, RawCloneThreadsRunUnsampled) {
  RecordAndAnalyze("--sync=none --watch", "clone_threads_plain", "");
  EXPECT_NE(program_out_.find("threads=22 lock_pairs=50000"), std::string::npos) << program_out_ << record_err_;
  EXPECT_NE(record_err_.find("sampled by a CPU-time timer"), std::string::npos) << record_err_;
}

// The program's own SIGTRAP handler runs when the trap is not a watchpoint's.
TEST_F(WatchTest, ProgramsSigtrapHandlerStillRuns) {
  RecordAndAnalyze("--sync=none --watch", "watch_counter_gcc", "200 sigtrap");
  EXPECT_NE(program_out_.find("sigtrap_handled=1"), std::string::npos) << program_out_ << record_err_;
}

// A full recording already sees every access (seer analyze predicts the
// race); the hooks check the watches only where an unrecorded access goes.
TEST_F(WatchTest, WatchWithAFullRecordingIsRefused) {
  EXPECT_EQ(Run("record --watch -o " + Path("t.seer") + " -- " + WatchProgram("watch_counter_gcc") + " 10"), 2);
  EXPECT_NE(err_.find("--watch on a seer-cc build goes with --sync=none"), std::string::npos) << err_;
}

// The default set of a --watch trace has the watch engine; a trace without
// watches (a generated one) does not.
TEST_F(WatchTest, DefaultSetHasWatchOnlyForWatchTraces) {
  RecordAndAnalyze("--sync=none --watch", "watch_counter_gcc", "100");
  ASSERT_EQ(Run("analyze " + Path("trace.seer")), 0) << err_;
  EXPECT_NE(out_.find("analyses: hb, shb, wcp, lockset, w3-linear, deadlock, blocked, lock-order, atomicity, watch\n"),
            std::string::npos)
      << out_;
  ASSERT_EQ(Run("gen --events 2000 --seed 3 -o " + Path("gen.seer")), 0) << err_;
  ASSERT_EQ(Run("analyze " + Path("gen.seer")), 0) << err_;
  EXPECT_NE(out_.find("analyses: hb, shb, wcp, lockset, w3-linear, deadlock, blocked, lock-order, atomicity\n"),
            std::string::npos)
      << out_;
}

}  // namespace
}  // namespace seer::test
