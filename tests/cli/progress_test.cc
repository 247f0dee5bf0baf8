// The progress line of `seer analyze` (cli/progress.h) with a clock the test
// drives: what it says of events, windows and the time left, and that it says
// nothing unless asked (stderr is a file here, not a terminal).
#include "cli/progress.h"

#include <gtest/gtest.h>

#include <chrono>
#include <string>

namespace seer::cli {
namespace {

using Clock = AnalysisProgressLine::Clock;

class ProgressLineTest : public ::testing::Test {
 protected:
  Clock::time_point now_ = Clock::time_point() + std::chrono::hours(1);
  std::function<Clock::time_point()> clock_ = [this] { return now_; };
  void Advance(double seconds) {
    now_ += std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
  }
};

TEST_F(ProgressLineTest, EventsWindowsAndTimeLeft) {
  testing::internal::CaptureStderr();
  {
    AnalysisProgressLine line(ProgressMode::kAlways, clock_);
    line.Fed(1000, 2000000);  // too soon after the start: not drawn
    Advance(2);
    line.Fed(500000, 2000000);  // a quarter in 2 s: 6 s left
    Advance(0.5);
    line.Fed(600000, 2000000);  // half a second after the last line: not drawn
    Advance(1.5);
    // The windows are behind the events: they decide the estimate (4 s for a
    // tenth: 36 s left).
    line.Decided("deadlock", "windows", 1, 10);
    Advance(6);
    line.Decided("deadlock", "windows", 10, 10);  // an engine's last window is always drawn
    Advance(1);
    line.Fed(2000000, 2000000);
  }
  const std::string err = testing::internal::GetCapturedStderr();
  EXPECT_EQ(err,
            "analyze: 500.0k of 2.00M events 25% (250.0k/s) | about 6s left\n"
            "analyze: 600.0k of 2.00M events 30% (150.0k/s) | deadlock 1/10 windows | about 36s left\n"
            "analyze: 600.0k of 2.00M events 30% (60.0k/s) | deadlock 10/10 windows | about 23s left\n"
            "analyze: 2.00M of 2.00M events 100% (181.8k/s) | deadlock 10/10 windows\n"
            "analyze: 2.00M events in 11s\n");
}

TEST_F(ProgressLineTest, LongEstimatesReadAsMinutesAndHours) {
  testing::internal::CaptureStderr();
  {
    AnalysisProgressLine line(ProgressMode::kAlways, clock_);
    Advance(60);
    line.Fed(1, 100);  // 99 minutes to go
    Advance(3600);
    line.Fed(61, 100);  // 61 minutes for 61%: 39 minutes to go
  }
  const std::string err = testing::internal::GetCapturedStderr();
  EXPECT_NE(err.find("| about 1h39m left\n"), std::string::npos) << err;
  EXPECT_NE(err.find("| about 39m00s left\n"), std::string::npos) << err;
  EXPECT_NE(err.find("analyze: 61 events in 1h01m\n"), std::string::npos) << err;
}

TEST_F(ProgressLineTest, UnknownTotalGivesNoEstimate) {
  testing::internal::CaptureStderr();
  {
    AnalysisProgressLine line(ProgressMode::kAlways, clock_);
    Advance(5);
    line.Fed(5000, 0);
  }
  EXPECT_EQ(testing::internal::GetCapturedStderr(),
            "analyze: 5.0k events (1.0k/s)\n"
            "analyze: 5.0k events in 5s\n");
}

TEST_F(ProgressLineTest, SilentUnlessAskedWhenStderrIsNotATerminal) {
  for (ProgressMode mode : {ProgressMode::kTerminal, ProgressMode::kNever}) {
    testing::internal::CaptureStderr();
    {
      AnalysisProgressLine line(mode, clock_);
      Advance(5);
      line.Fed(5000, 10000);
      line.Decided("atomicity", "windows", 1, 1);
    }
    EXPECT_EQ(testing::internal::GetCapturedStderr(), "");
  }
}

}  // namespace
}  // namespace seer::cli
