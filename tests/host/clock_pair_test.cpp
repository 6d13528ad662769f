// clock_pair: the two clocks are read at one instant, whichever clock the recording uses.
#include "host/clock_pair.hpp"

#include <gtest/gtest.h>
#include <time.h>

namespace arec::host {
namespace {

std::uint64_t monotonic_now() {
  timespec at{};
  ::clock_gettime(CLOCK_MONOTONIC, &at);
  return static_cast<std::uint64_t>(at.tv_sec) * 1'000'000'000u +
         static_cast<std::uint64_t>(at.tv_nsec);
}

TEST(ClockPair, PerfsOwnClockIsReadBetweenTwoReadingsOfTheMonotonicOne) {
  std::uint64_t before = monotonic_now();
  std::optional<perf_data::clock_pair> first = read_clock_pair(std::nullopt);
  std::optional<perf_data::clock_pair> second = read_clock_pair(std::nullopt);
  std::uint64_t after = monotonic_now();
  ASSERT_TRUE(first && second) << "perf_event_open of a dummy event on this thread";
  EXPECT_LE(before, first->monotonic_ns);
  EXPECT_LE(first->monotonic_ns, second->monotonic_ns);
  EXPECT_LE(second->monotonic_ns, after);
  EXPECT_NE(first->recording_ns, 0u);
  EXPECT_LE(first->recording_ns, second->recording_ns) << "perf's clock moves forward too";
}

TEST(ClockPair, AClockTheUserNamedIsReadDirectly) {
  std::uint64_t before = monotonic_now();
  std::optional<perf_data::clock_pair> pair = read_clock_pair(CLOCK_MONOTONIC);
  ASSERT_TRUE(pair);
  EXPECT_LE(before, pair->monotonic_ns);
  EXPECT_LE(pair->monotonic_ns, pair->recording_ns) << "the same clock, read after";
}

}  // namespace
}  // namespace arec::host
