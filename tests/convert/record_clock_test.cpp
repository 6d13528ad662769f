#include "convert/record_clock.hpp"

#include <gtest/gtest.h>

#include "records.hpp"

namespace arec::convert {
namespace {

using namespace test_records;

TEST(RecordClock, ReadsSampleTimeAfterIdentifierIpAndTid) {
  std::vector events{event(sample_type, {})};
  record_clock clock(events);
  auto sample = record(PERF_RECORD_SAMPLE, 0, 0x401000, 0x0000002a0000002a, 12345, 1, 1000);
  EXPECT_EQ(clock.time_of(sample), 12345u);
}

TEST(RecordClock, ReadsTrailerTimeOfOtherKernelRecords) {
  std::vector events{event(sample_type, {})};
  record_clock clock(events);
  // COMM: pid/tid, "hot", then the trailer TID, TIME, CPU, IDENTIFIER.
  auto comm = record(PERF_RECORD_COMM, 0x2a0000002a, 0x746f68, 0x2a0000002a, 777, 1, 0);
  EXPECT_EQ(clock.time_of(comm), 777u);
}

TEST(RecordClock, TreatsZeroTimeAndPerfOwnRecordsAsUntimed) {
  std::vector events{event(sample_type, {})};
  record_clock clock(events);
  EXPECT_FALSE(clock.time_of(record(PERF_RECORD_COMM, 1, 2, 3, 0, 0, 0)));
  EXPECT_FALSE(clock.time_of(record(perf_data::record_finished_round)));
  EXPECT_FALSE(clock.time_of(record(perf_data::record_finished_init, 5, 5, 5, 5)));
}

TEST(RecordClock, FindsTheAttrOfEachRecordByItsIdentifier) {
  // The second attr has no IP, so its samples hold the time one word earlier.
  std::vector events{event(sample_type, {10}),
                     event(sample_type & ~std::uint64_t{PERF_SAMPLE_IP}, {20})};
  record_clock clock(events);
  EXPECT_EQ(clock.time_of(record(PERF_RECORD_SAMPLE, 10, 0x401000, 0, 500, 0, 1)), 500u);
  EXPECT_EQ(clock.time_of(record(PERF_RECORD_SAMPLE, 20, 0, 600, 0, 1)), 600u);
}

}  // namespace
}  // namespace arec::convert
