#include "record/streaming/record_scan.hpp"

#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "perf_data/perf_abi.hpp"
#include "perf_data/sample_layout.hpp"
#include "record/events/event_attrs.hpp"

using arec::record::ring_reader;
using arec::record::scan_records;
using arec::record::stream_stats;

namespace {

// Appends one record of `type` with `body_words` u64 words, `fields` set at word positions.
void append_record(std::vector<std::byte>& out, std::uint32_t type, std::size_t body_words,
                   std::vector<std::pair<std::size_t, std::uint64_t>> fields) {
  std::vector<std::uint64_t> body(body_words, 0x5555555555555555ULL);
  for (auto [word, value] : fields) body[word] = value;
  arec::perf_data::record_header header{type, 0, static_cast<std::uint16_t>(8 + 8 * body_words)};
  auto* h = reinterpret_cast<const std::byte*>(&header);
  out.insert(out.end(), h, h + sizeof header);
  auto* b = reinterpret_cast<const std::byte*>(body.data());
  out.insert(out.end(), b, b + 8 * body_words);
}

constexpr std::size_t common_time_offset =
    arec::perf_data::sample_time_offset(arec::record::common_sample_type);

// SAMPLE of the common layout: IP, TID, TIME, ID, CPU, PERIOD.
void append_sample(std::vector<std::byte>& out, std::uint64_t time) {
  append_record(out, PERF_RECORD_SAMPLE, 6, {{common_time_offset / 8, time}});
}

std::vector<std::byte> stream() {
  std::vector<std::byte> out;
  append_sample(out, 300);
  append_record(out, PERF_RECORD_MMAP2, 12, {});
  append_sample(out, 100);
  append_record(out, PERF_RECORD_LOST, 6, {{1, 7}});          // u64 id; u64 lost
  append_record(out, PERF_RECORD_LOST_SAMPLES, 5, {{0, 5}});  // u64 lost
  append_sample(out, 200);
  return out;
}

// Places `bytes` in a ring of `ring_size` so that it starts `start` bytes into the data area,
// wrapping at the end, and scans the chunk the reader returns.
stream_stats scan_in_ring(const std::vector<std::byte>& bytes, std::size_t ring_size,
                          std::size_t start) {
  perf_event_mmap_page control{};
  std::vector<std::byte> data(ring_size, std::byte{0xEE});
  control.data_tail = start;
  for (std::size_t i = 0; i < bytes.size(); ++i) data[(start + i) % ring_size] = bytes[i];
  control.data_head = start + bytes.size();
  ring_reader reader(&control, data);
  stream_stats stats;
  scan_records(reader.unread(), stats, common_time_offset);
  return stats;
}

}  // namespace

TEST(RecordScan, CountsSamplesLossesAndSampleTimes) {
  auto bytes = stream();
  stream_stats stats = scan_in_ring(bytes, 1024, 0);
  EXPECT_EQ(stats.samples, 3u);
  EXPECT_EQ(stats.lost, 12u);
  EXPECT_EQ(stats.first_sample_time, 100u);
  EXPECT_EQ(stats.last_sample_time, 300u);
  EXPECT_EQ(stats.bytes_in, bytes.size());
}

TEST(RecordScan, ReadsTheSameWhereverTheWrapFalls) {
  auto bytes = stream();
  const std::size_t ring = 512;  // smaller than start + size: every start wraps somewhere
  for (std::size_t start = 0; start < ring; start += 8) {
    stream_stats stats = scan_in_ring(bytes, ring, start);
    ASSERT_EQ(stats.samples, 3u) << "start " << start;
    ASSERT_EQ(stats.lost, 12u) << "start " << start;
    ASSERT_EQ(stats.first_sample_time, 100u) << "start " << start;
    ASSERT_EQ(stats.last_sample_time, 300u) << "start " << start;
  }
}

TEST(RecordScan, ReadsTheTimeWhereTheSharedSampleTypePutsIt) {
  // --sample-identifier: IDENTIFIER, IP, TID, TIME, CPU, PERIOD; the time is the 4th u64.
  arec::record::attr_options attrs;
  attrs.sample_identifier = true;
  std::size_t offset = arec::perf_data::sample_time_offset(arec::record::shared_sample_type(attrs));
  ASSERT_EQ(offset, 24u);
  std::vector<std::byte> bytes;
  append_record(bytes, PERF_RECORD_SAMPLE, 6, {{0, 77}, {3, 500}});
  append_record(bytes, PERF_RECORD_SAMPLE, 6, {{0, 77}, {3, 400}});
  perf_event_mmap_page control{};
  control.data_head = bytes.size();
  ring_reader reader(&control, bytes);
  stream_stats stats;
  scan_records(reader.unread(), stats, offset);
  EXPECT_EQ(stats.first_sample_time, 400u);
  EXPECT_EQ(stats.last_sample_time, 500u);
}

TEST(RecordScan, StopsAtARecordThatRunsPastTheChunk) {
  auto bytes = stream();
  bytes.resize(bytes.size() - 8);  // the last sample is cut short
  stream_stats stats = scan_in_ring(bytes, 1024, 0);
  EXPECT_EQ(stats.samples, 2u);
  EXPECT_EQ(stats.last_sample_time, 300u);
}

namespace {

// An MMAP2 whose misc has the build-id flag the kernel leaked into it (its body holds device and
// inode), between two samples.
std::vector<std::byte> stream_with_leaked_flag() {
  std::vector<std::byte> out;
  append_sample(out, 1);
  append_record(out, PERF_RECORD_MMAP2, 12, {});
  arec::perf_data::record_header header;
  std::memcpy(&header, out.data() + 56, sizeof header);
  header.misc = PERF_RECORD_MISC_USER | PERF_RECORD_MISC_MMAP_BUILD_ID;
  std::memcpy(out.data() + 56, &header, sizeof header);
  append_sample(out, 2);
  return out;
}

std::uint16_t misc_at(const std::vector<std::byte>& bytes, std::size_t offset) {
  arec::perf_data::record_header header;
  std::memcpy(&header, bytes.data() + offset, sizeof header);
  return header.misc;
}

// Scans `bytes` placed at the start of `ring`; returns whether the scan asks for mending.
bool scan_at_start(const std::vector<std::byte>& bytes, std::vector<std::byte>& ring,
                   stream_stats& stats, arec::record::record_fixups fixups) {
  perf_event_mmap_page control{};
  control.data_head = bytes.size();
  std::copy(bytes.begin(), bytes.end(), ring.begin());
  ring_reader reader(&control, ring);
  return scan_records(reader.unread(), stats, common_time_offset, fixups);
}

}  // namespace

TEST(RecordScan, LeakedBuildIdFlagIsFoundAndClearedInACopy) {
  std::vector<std::byte> bytes = stream_with_leaked_flag();
  std::vector<std::byte> ring(256);
  stream_stats stats;
  arec::record::record_fixups fixups{.clear_leaked_build_id_flags = true};
  ASSERT_TRUE(scan_at_start(bytes, ring, stats, fixups));
  EXPECT_EQ(stats.samples, 2u);
  EXPECT_EQ(misc_at(ring, 56), PERF_RECORD_MISC_USER | PERF_RECORD_MISC_MMAP_BUILD_ID)
      << "the scan only reads the ring";

  arec::record::mend_records(bytes, fixups);
  EXPECT_EQ(misc_at(bytes, 56), PERF_RECORD_MISC_USER);
  EXPECT_EQ(misc_at(bytes, 0), 0) << "other records are left alone";
}

TEST(RecordScan, BuildIdFlagStaysWhenArecAskedForBuildIds) {
  std::vector<std::byte> bytes = stream_with_leaked_flag();
  std::vector<std::byte> ring(256);
  stream_stats stats;
  EXPECT_FALSE(scan_at_start(bytes, ring, stats, {}));
  arec::record::mend_records(bytes, {});
  EXPECT_EQ(misc_at(bytes, 56), PERF_RECORD_MISC_USER | PERF_RECORD_MISC_MMAP_BUILD_ID);
}
