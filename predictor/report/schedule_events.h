// The events of the witness schedules' tails (the positions the reports show),
// read back from the trace: findings keep positions only, and the HTML lanes and
// SARIF thread flows need each step's thread, kind, object and pc.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "predictor/findings.h"
#include "seer/event.h"
#include "seer/status.h"

namespace seer::predictor {

// Schedules can be millions of positions long: the reports keep the end, where
// the bug happens.
constexpr size_t kScheduleTail = 50;

// The last kScheduleTail positions of the schedule.
std::vector<uint64_t> ScheduleTail(const Witness& witness);

// Reads the trace at `path` once and returns the events at the positions of
// every deadlock's and atomicity violation's schedule tail (and of confirmed
// race pairs), keyed by position.
Status ReadScheduleEvents(const std::string& path, const Findings& findings, std::map<uint64_t, Event>* out);

}  // namespace seer::predictor
