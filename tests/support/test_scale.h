#ifndef SEER_TESTS_SUPPORT_TEST_SCALE_H_
#define SEER_TESTS_SUPPORT_TEST_SCALE_H_

// How many random traces, seeds or mutations a long property test runs.
//
// `make test` runs every test twice: in the release build, then again under
// AddressSanitizer and UndefinedBehaviorSanitizer, where the same loop is five to
// ten times slower. The release pass runs every iteration; the sanitizer pass
// runs a quarter of them (the same first quarter of the same seeds), enough to
// put every code path the loop reaches under the sanitizers while keeping
// `make test` within its hour on CI's two cores.

#include <cstdint>

namespace seer::test {

#if defined(__SANITIZE_ADDRESS__)
inline constexpr bool kSanitizerBuild = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
inline constexpr bool kSanitizerBuild = true;
#else
inline constexpr bool kSanitizerBuild = false;
#endif
#else
inline constexpr bool kSanitizerBuild = false;
#endif

// `full` in the release pass, a quarter of it (at least 1) under the sanitizers.
constexpr int Iterations(int full) { return kSanitizerBuild ? (full / 4 > 0 ? full / 4 : 1) : full; }

// The least a loop of Iterations(full) must find for its check not to be
// vacuous, given the bound for the full loop: that bound in the release pass, a
// tenth of it under the sanitizers (a quarter of the iterations, and room for
// how much a smaller sample varies).
constexpr uint64_t AtLeast(uint64_t full_bound) { return kSanitizerBuild ? full_bound / 10 : full_bound; }

}  // namespace seer::test

#endif  // SEER_TESTS_SUPPORT_TEST_SCALE_H_
