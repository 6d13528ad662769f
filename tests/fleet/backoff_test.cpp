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

}  // namespace
}  // namespace arec::fleet
