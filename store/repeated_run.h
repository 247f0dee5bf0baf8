// A run of one thread's events that the recorder saw again, event for event
// (a loop body between two of the thread's synchronisation events: see
// RingMerger's repeats). Immutable once made and shared by whoever holds it,
// so that a repeat is handed on as a pointer rather than copied, and two
// repeats of one run are told alike by their pointers.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "seer/event.h"

namespace seer::store {

struct RepeatedRun {
  std::vector<Event> events;
  std::array<uint32_t, kNumEventKinds> by_kind{};  // how many events of each kind
};

}  // namespace seer::store
