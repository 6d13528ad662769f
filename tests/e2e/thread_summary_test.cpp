// Parsing arec's per-thread and compression lines.
#include "thread_summary.hpp"

#include <gtest/gtest.h>

#include <stdexcept>

namespace arec::e2e {
namespace {

TEST(ThreadSummaryParser, ParsesEveryFieldOfEachLine) {
  auto threads = find_thread_summaries(
      "arec: note\n"
      "arec: thread 0: cpus=0,16 affinity=0-1,16 ran_on=16 samples=516 lost=2 bytes=34272 "
      "drains=12 cpu_time=0.001s\n"
      "arec: thread 1: cpus=1 affinity=1 ran_on=1 samples=0 lost=0 bytes=0 drains=0 "
      "cpu_time=12.500s\n"
      "arec: 516 samples, 2 lost, 100 bytes written to d\n");
  ASSERT_EQ(threads.size(), 2u);
  EXPECT_EQ(threads[0].index, 0u);
  EXPECT_EQ(threads[0].cpus, (std::vector<int>{0, 16}));
  EXPECT_EQ(threads[0].affinity, (std::vector<int>{0, 1, 16}));
  EXPECT_EQ(threads[0].ran_on, (std::vector<int>{16}));
  EXPECT_EQ(threads[0].samples, 516u);
  EXPECT_EQ(threads[0].lost, 2u);
  EXPECT_EQ(threads[0].bytes, 34272u);
  EXPECT_EQ(threads[0].drains, 12u);
  EXPECT_DOUBLE_EQ(threads[0].cpu_seconds, 0.001);
  EXPECT_EQ(threads[1].index, 1u);
  EXPECT_DOUBLE_EQ(threads[1].cpu_seconds, 12.5);
}

TEST(ThreadSummaryParser, AcceptsAnEmptyRanOnList) {
  // A thread that never ran shows "ran_on=" with nothing after it; the test then reports it.
  auto threads = find_thread_summaries(
      "arec: thread 0: cpus=3 affinity=3 ran_on= samples=0 lost=0 bytes=0 drains=0 "
      "cpu_time=0.000s\n");
  ASSERT_EQ(threads.size(), 1u);
  EXPECT_TRUE(threads[0].ran_on.empty());
}

TEST(ThreadSummaryParser, ThrowsOnALineInAnotherFormat) {
  EXPECT_THROW(find_thread_summaries("arec: thread 0: cpus=0 samples=5\n"), std::invalid_argument);
  EXPECT_TRUE(find_thread_summaries("arec: 5 samples, 0 lost, 1 bytes written to x\n").empty());
}

TEST(CompressionSummaryParser, ParsesTheExactFormat) {
  auto line = find_compression_summary(
      "arec: 1 samples, 0 lost, 2 bytes written to z\n"
      "arec: compressed 12624 bytes to 1397 (ratio 9.0)\n");
  ASSERT_TRUE(line);
  EXPECT_EQ(line->bytes_in, 12624u);
  EXPECT_EQ(line->bytes_out, 1397u);
  EXPECT_DOUBLE_EQ(line->ratio, 9.0);
  EXPECT_FALSE(find_compression_summary("arec: compressed 1 bytes to 2\n"));
  EXPECT_FALSE(find_compression_summary(""));
}

}  // namespace
}  // namespace arec::e2e
