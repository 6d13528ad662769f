#include "record/streaming/backward_ring.hpp"

#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "perf_data/perf_abi.hpp"

namespace arec::record {
namespace {

// A backward ring in plain memory, written as the kernel writes one: the head moves down by a
// record's size and the record goes at the new head, wrapping at the end of the data area.
struct fake_backward_ring {
  explicit fake_backward_ring(std::size_t size) : data(size, std::byte{0}) {}
  perf_event_mmap_page control{};
  std::vector<std::byte> data;

  void produce(const std::vector<std::byte>& record) {
    control.data_head -= record.size();
    for (std::size_t i = 0; i < record.size(); ++i)
      data[(control.data_head + i) % data.size()] = record[i];
  }
};

// A SAMPLE (24 bytes unless `size` says more) whose body is its time then a tag; the tests'
// layout reads the time first.
std::vector<std::byte> sample(std::uint64_t time, std::uint64_t tag, std::uint16_t size = 24) {
  std::vector<std::byte> record(size);
  perf_data::record_header header{PERF_RECORD_SAMPLE, 0, size};
  std::memcpy(record.data(), &header, sizeof header);
  std::memcpy(record.data() + 8, &time, 8);
  std::memcpy(record.data() + 16, &tag, 8);
  return record;
}

// A 32-byte COMM-like record whose sample_id trailer ends in its time.
std::vector<std::byte> side_band(std::uint64_t time) {
  std::vector<std::byte> record(32, std::byte{0x11});
  perf_data::record_header header{PERF_RECORD_COMM, 0, 32};
  std::memcpy(record.data(), &header, sizeof header);
  std::memcpy(record.data() + 24, &time, 8);
  return record;
}

constexpr record_time_layout test_layout{.sample_time_offset = 0, .trailer_time_from_end = 8};

std::vector<std::byte> flatten(const ring_chunk& chunk) {
  std::vector<std::byte> out(chunk.size());
  chunk.copy_out(0, out);
  return out;
}

// The tags of the samples in `records`, in order.
std::vector<std::uint64_t> tags(const std::vector<std::byte>& records) {
  std::vector<std::uint64_t> found;
  for (std::size_t at = 0; at + 8 <= records.size();) {
    perf_data::record_header header;
    std::memcpy(&header, records.data() + at, sizeof header);
    if (header.type == PERF_RECORD_SAMPLE) {
      std::uint64_t tag;
      std::memcpy(&tag, records.data() + at + 16, 8);
      found.push_back(tag);
    } else {
      found.push_back(0);
    }
    at += header.size;
  }
  return found;
}

TEST(BackwardRing, EmptyRingHasNothingToTake) {
  fake_backward_ring ring(64);
  backward_reader reader(&ring.control, ring.data);
  EXPECT_TRUE(reader.take().empty());
}

TEST(BackwardRing, TakesTheRecordsNewestFirst) {
  fake_backward_ring ring(128);
  backward_reader reader(&ring.control, ring.data);
  for (std::uint64_t n = 1; n <= 3; ++n) ring.produce(sample(n * 10, n));
  EXPECT_EQ(reader.written_since_take(), 72u);
  EXPECT_EQ(tags(flatten(reader.take())), (std::vector<std::uint64_t>{3, 2, 1}));
}

TEST(BackwardRing, ASecondTakeHasOnlyWhatCameSince) {
  fake_backward_ring ring(128);
  backward_reader reader(&ring.control, ring.data);
  ring.produce(sample(10, 1));
  ring.produce(sample(20, 2));
  EXPECT_EQ(tags(flatten(reader.take())), (std::vector<std::uint64_t>{2, 1}));
  EXPECT_TRUE(reader.take().empty());
  ring.produce(sample(30, 3));
  EXPECT_EQ(tags(flatten(reader.take())), (std::vector<std::uint64_t>{3}));
}

// 64 bytes hold two whole 24-byte records and the start of a third, whose end the newest one
// overwrote: the torn one is left out. The newest two wrap past the end of the data area.
TEST(BackwardRing, AFullRingGivesItsNewestWholeRecordsAcrossTheWrap) {
  fake_backward_ring ring(64);
  backward_reader reader(&ring.control, ring.data);
  for (std::uint64_t n = 1; n <= 4; ++n) ring.produce(sample(n * 10, n));
  ring_chunk chunk = reader.take();
  EXPECT_FALSE(chunk.pieces[1].empty()) << "the records should wrap in this layout";
  EXPECT_EQ(tags(flatten(chunk)), (std::vector<std::uint64_t>{4, 3}));
}

TEST(BackwardRing, FindsTheRangeAsPerfDoesWhenTheRingIsExactlyFull) {
  fake_backward_ring ring(128);
  for (std::uint64_t n = 1; n <= 6; ++n) ring.produce(sample(n, n, 32));
  // Six records were written, four fit exactly: the walk stops at the ring's size.
  backward_range range = find_backward_range(ring.data, ring.control.data_head, 0);
  EXPECT_EQ(range.start, ring.control.data_head);
  EXPECT_EQ(range.size(), 128u);
  EXPECT_EQ(tags(flatten(backward_chunk(ring.data, range))),
            (std::vector<std::uint64_t>{6, 5, 4, 3}));
}

// Asked for more than the ring's size since `previous_head`, the walk still stops where the
// kernel never wrote (a zero header), as perf's does.
TEST(BackwardRing, StopsAtSpaceNeverWritten) {
  fake_backward_ring ring(128);
  for (std::uint64_t n = 1; n <= 3; ++n) ring.produce(sample(n, n));
  std::uint64_t head = ring.control.data_head;
  backward_range range = find_backward_range(ring.data, head, head + 200);
  EXPECT_EQ(range.size(), 72u);
  EXPECT_EQ(tags(flatten(backward_chunk(ring.data, range))), (std::vector<std::uint64_t>{3, 2, 1}));
}

TEST(BackwardRing, OrdersSeveralRingsByTimeOldestFirst) {
  fake_backward_ring a(256), b(256);
  backward_reader read_a(&a.control, a.data), read_b(&b.control, b.data);
  a.produce(sample(10, 1));
  b.produce(sample(15, 2));
  b.produce(side_band(20));
  a.produce(sample(30, 3));
  b.produce(sample(40, 4));
  std::vector<std::vector<std::byte>> rings{flatten(read_a.take()), flatten(read_b.take())};
  std::vector<std::byte> ordered = order_by_time(rings, test_layout);
  EXPECT_EQ(ordered.size(), rings[0].size() + rings[1].size());
  EXPECT_EQ(tags(ordered), (std::vector<std::uint64_t>{1, 2, 0, 3, 4}));
}

TEST(BackwardRing, EqualTimesKeepTheirRingsOrder) {
  fake_backward_ring ring(256);
  backward_reader reader(&ring.control, ring.data);
  ring.produce(sample(10, 1));
  ring.produce(sample(10, 2));
  ring.produce(sample(10, 3));
  std::vector<std::vector<std::byte>> rings{flatten(reader.take())};
  EXPECT_EQ(tags(order_by_time(rings, test_layout)), (std::vector<std::uint64_t>{1, 2, 3}));
}

}  // namespace
}  // namespace arec::record
