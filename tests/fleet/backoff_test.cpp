#include "fleet/backoff.hpp"

#include <gtest/gtest.h>

namespace arec::fleet {
namespace {

using std::chrono::milliseconds;

TEST(FleetBackoff, DoublesWithJitterUpToTheCap) {
  backoff delays{milliseconds(100), milliseconds(1000), 42};
  const long ceilings[] = {100, 200, 400, 800, 1000, 1000, 1000};
  for (long ceiling : ceilings) {
    auto delay = delays.next().count();
    EXPECT_GE(delay, ceiling / 2);
    EXPECT_LE(delay, ceiling);
  }
  delays.reset();
  EXPECT_LE(delays.next().count(), 100);
}

TEST(FleetBackoff, JitterSpreadsHostsApart) {
  backoff one{milliseconds(1000), milliseconds(60000), 1};
  backoff other{milliseconds(1000), milliseconds(60000), 2};
  int same = 0;
  for (int i = 0; i < 6; ++i) same += one.next() == other.next() ? 1 : 0;
  EXPECT_LT(same, 6);
}

TEST(FleetBackoff, WaitsAtLeastWhatTheServerAsksUpToTheCap) {
  backoff delays{milliseconds(100), milliseconds(10'000), 42};
  EXPECT_EQ(delays.next(milliseconds(5'000)), milliseconds(5'000));
  EXPECT_EQ(delays.next(milliseconds(3'600'000)), milliseconds(10'000)) << "bounded by the cap";
  delays.reset();
  EXPECT_LE(delays.next(milliseconds(0)).count(), 100) << "an ask below ours changes nothing";
}

TEST(FleetBackoff, RetryAfterIsSecondsOrAnHttpDate) {
  auto now = std::chrono::system_clock::from_time_t(1445412480);  // Wed, 21 Oct 2015 07:28:00 GMT
  EXPECT_EQ(parse_retry_after("120", now), milliseconds(120'000));
  EXPECT_EQ(parse_retry_after(" 0 ", now), milliseconds(0));
  EXPECT_EQ(parse_retry_after("Wed, 21 Oct 2015 07:28:30 GMT", now), milliseconds(30'000));
  EXPECT_EQ(parse_retry_after("Wed, 21 Oct 2015 07:00:00 GMT", now), milliseconds(0))
      << "a date past is now";
  EXPECT_EQ(parse_retry_after("soon", now), std::nullopt);
  EXPECT_EQ(parse_retry_after("-5", now), std::nullopt);
  EXPECT_EQ(parse_retry_after("12abc", now), std::nullopt);
  EXPECT_EQ(parse_retry_after("", now), std::nullopt);
}

}  // namespace
}  // namespace arec::fleet
