#include "record/streaming/output_meter.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <thread>
#include <vector>

using arec::record::output_meter;

TEST(OutputMeter, AsksForOneSwitchPerOutputAndStopsOnce) {
  int switches = 0;
  std::vector<std::uint64_t> limits;
  output_meter meter(
      100, [&] { ++switches; }, 250, [&](std::uint64_t b) { limits.push_back(b); });
  meter.add(60);
  EXPECT_EQ(switches, 0);
  meter.add(60);  // 120 >= 100
  meter.add(60);  // still the same output
  EXPECT_EQ(switches, 1);
  meter.start_output();
  meter.add(90);  // all outputs: 270 >= 250
  EXPECT_EQ(switches, 1);
  EXPECT_EQ(limits, std::vector<std::uint64_t>{270});
  meter.add(10);  // the new output reached 100
  EXPECT_EQ(switches, 2);
  meter.add(10);
  EXPECT_EQ(limits, std::vector<std::uint64_t>{270});
  EXPECT_EQ(meter.total(), 290u);
}

TEST(OutputMeter, ZeroMeansNoLimit) {
  bool called = false;
  output_meter meter(
      0, [&] { called = true; }, 0, [&](std::uint64_t) { called = true; });
  meter.add(1u << 30);
  EXPECT_FALSE(called);
}

// Streaming threads add at once: the sum is every thread's bytes, and the one crossing a
// limit reports it alone.
TEST(OutputMeterConcurrent, CountsEveryThreadsBytesAndReportsOnce) {
  std::atomic<int> switches{0};
  std::atomic<int> limits{0};
  constexpr int threads = 4;
  constexpr int adds = 10000;
  output_meter meter(
      1000, [&] { ++switches; }, 30000, [&](std::uint64_t) { ++limits; });
  std::vector<std::thread> adders;
  for (int t = 0; t < threads; ++t)
    adders.emplace_back([&] {
      for (int i = 0; i < adds; ++i) meter.add(1);
    });
  for (std::thread& adder : adders) adder.join();
  EXPECT_EQ(meter.total(), std::uint64_t{threads} * adds);
  EXPECT_EQ(switches.load(), 1);
  EXPECT_EQ(limits.load(), 1);
}
