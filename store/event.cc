#include "seer/event.h"

#include <array>

namespace seer {
namespace {

constexpr std::array<std::string_view, kNumEventKinds> kKindNames = {
    "read",         "write",          "atomic_load",     "atomic_store",  "atomic_rmw",
    "acquire",      "release",        "cond_wait_begin", "cond_wait_end", "signal",
    "wait",         "barrier_arrive", "barrier_depart",  "fork",          "join",
    "thread_begin", "thread_end",     "alloc",           "free",          "func_entry",
    "func_exit",    "branch",         "atomic_begin",    "atomic_end",    "fence",
    "lock_wait",    "watch_sample",   "watch_hit",       "lock_request",
};

}  // namespace

std::string_view EventKindName(EventKind kind) {
  auto i = static_cast<size_t>(kind);
  return i < kKindNames.size() ? kKindNames[i] : std::string_view("unknown");
}

std::optional<EventKind> EventKindFromName(std::string_view name) {
  for (size_t i = 0; i < kKindNames.size(); ++i) {
    if (kKindNames[i] == name) return static_cast<EventKind>(i);
  }
  return std::nullopt;
}

}  // namespace seer
