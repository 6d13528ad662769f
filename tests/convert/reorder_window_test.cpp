#include "convert/reorder_window.hpp"

#include <gtest/gtest.h>

#include "records.hpp"

namespace arec::convert {
namespace {

using namespace test_records;

TEST(ReorderWindow, ReleasesRecordsInTimeOrderAndTiesInArrivalOrder) {
  reorder_window window(1u << 20);
  for (std::uint64_t time : {30, 10, 20, 10})
    window.push(time, record(PERF_RECORD_SAMPLE, time, window.size()));
  std::vector<std::pair<std::uint64_t, std::uint64_t>> out;
  while (!window.empty()) {
    std::uint64_t arrival = 0;
    std::memcpy(&arrival, window.top().data() + 16, 8);
    out.emplace_back(window.top_time(), arrival);
    window.pop();
  }
  EXPECT_EQ(out, (std::vector<std::pair<std::uint64_t, std::uint64_t>>{
                     {10, 1}, {10, 3}, {20, 2}, {30, 0}}));
}

TEST(ReorderWindow, MemoryStaysBoundedOverALongStreamThatLeavesWhenFull) {
  const std::size_t budget = 2u << 20;
  reorder_window window(budget);
  auto r = record(PERF_RECORD_SAMPLE, 0, 0, 0, 0, 0, 0);
  std::uint64_t last = 0;
  for (std::uint64_t i = 0; i < 1'000'000; ++i) {
    window.push(i ^ 3, r);  // slightly out of order
    while (window.over_budget()) {
      ASSERT_GE(window.top_time(), last);
      last = window.top_time();
      window.pop();
    }
  }
  EXPECT_LE(window.peak_memory(), budget + 256 * 1024 + 64);
}

}  // namespace
}  // namespace arec::convert
