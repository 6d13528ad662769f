#include "perf_data/feature_encoder.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <climits>
#include <cstring>

using namespace arec::perf_data;

namespace {

std::vector<std::byte> bytes_of(std::initializer_list<int> values) {
  std::vector<std::byte> out;
  for (int value : values) out.push_back(static_cast<std::byte>(value));
  return out;
}

std::vector<std::byte> padded_string(std::string_view text, std::uint32_t length) {
  std::vector<std::byte> out(4 + length, std::byte{0});
  std::memcpy(out.data(), &length, 4);
  std::memcpy(out.data() + 4, text.data(), text.size());
  return out;
}

template <typename T>
T read_at(const std::vector<std::byte>& bytes, std::size_t offset) {
  T value;
  std::memcpy(&value, bytes.data() + offset, sizeof value);
  return value;
}

}  // namespace

TEST(FeatureEncoder, PerfStringIsLengthThenTextPaddedToSixtyFour) {
  feature_encoder out;
  out.string("vm");
  std::vector<std::byte> expected = bytes_of({0x40, 0, 0, 0, 'v', 'm'});
  expected.resize(4 + 64, std::byte{0});
  EXPECT_EQ(out.take(), expected);
}

TEST(FeatureEncoder, PerfStringLengthCountsTheNul) {
  feature_encoder out;
  out.string(std::string(63, 'a'));  // 63 + NUL fits 64
  out.string(std::string(64, 'b'));  // 64 + NUL needs 128
  out.string("");                    // the NUL alone still takes 64
  auto bytes = out.take();
  ASSERT_EQ(bytes.size(), 4 + 64 + 4 + 128 + 4 + 64u);
  EXPECT_EQ(read_at<std::uint32_t>(bytes, 0), 64u);
  EXPECT_EQ(bytes[4 + 63], std::byte{0});
  EXPECT_EQ(read_at<std::uint32_t>(bytes, 68), 128u);
  EXPECT_EQ(bytes[72 + 63], std::byte{'b'});
  EXPECT_EQ(bytes[72 + 64], std::byte{0});
  EXPECT_EQ(read_at<std::uint32_t>(bytes, 200), 64u);
}

TEST(FeatureEncoder, StringListIsCountThenStrings) {
  feature_encoder out;
  std::vector<std::string> list{"0-1", "2"};
  out.string_list(list);
  std::vector<std::byte> expected = bytes_of({2, 0, 0, 0});
  for (auto& part : {padded_string("0-1", 64), padded_string("2", 64)})
    expected.insert(expected.end(), part.begin(), part.end());
  EXPECT_EQ(out.take(), expected);
}

TEST(FeatureEncoder, IntegersArePackedWithoutAlignment) {
  feature_encoder out;
  out.u32(0x01020304);
  out.u64(0x1112131415161718);
  EXPECT_EQ(out.take(), bytes_of({4, 3, 2, 1, 0x18, 0x17, 0x16, 0x15, 0x14, 0x13, 0x12, 0x11}));
}

TEST(FeatureEncoder, TakeLeavesTheEncoderEmpty) {
  feature_encoder out;
  out.u32(7);
  EXPECT_EQ(out.take().size(), 4u);
  out.u32(8);
  EXPECT_EQ(out.take(), bytes_of({8, 0, 0, 0}));
}

TEST(FeatureSet, IteratesInAscendingBitOrderAndReplaces) {
  feature_set set;
  set.set(feature_sample_time, bytes_of({21}));
  set.set(feature_hostname, bytes_of({3}));
  set.set(feature_event_desc, bytes_of({12}));
  set.set(feature_hostname, bytes_of({33}));
  std::vector<unsigned> bits;
  for (const auto& entry : set) bits.push_back(entry.bit);
  EXPECT_EQ(bits, (std::vector<unsigned>{3, 12, 21}));
  EXPECT_EQ(*set.find(feature_hostname), bytes_of({33}));
  EXPECT_TRUE(set.has(feature_event_desc));
  EXPECT_FALSE(set.has(feature_cmdline));
  EXPECT_EQ(set.find(feature_cmdline), nullptr);
}

TEST(FeatureSet, RejectsReservedAndOutOfBitmapBits) {
  feature_set set;
  EXPECT_THROW(set.set(static_cast<feature>(0), {}), std::out_of_range);
  EXPECT_THROW(set.set(static_cast<feature>(256), {}), std::out_of_range);
  EXPECT_EQ(set.size(), 0u);
}

TEST(FeatureBuilders, GroupDescNamesEachGroupItsLeaderAndSize) {
  std::vector<group_entry> groups{{"", 0, 2}, {"foo", 3, 3}};
  auto payload = group_desc_payload(groups);
  ASSERT_EQ(payload.size(), 4 + (4 + 64 + 8) * 2);
  EXPECT_EQ(read_at<std::uint32_t>(payload, 0), 2u);
  EXPECT_EQ(read_at<std::uint32_t>(payload, 4), 64u);
  EXPECT_EQ(std::memcmp(payload.data() + 8, "{anon_group}", 13), 0);
  EXPECT_EQ(read_at<std::uint32_t>(payload, 72), 0u);
  EXPECT_EQ(read_at<std::uint32_t>(payload, 76), 2u);
  EXPECT_EQ(std::memcmp(payload.data() + 84, "foo", 4), 0);
  EXPECT_EQ(read_at<std::uint32_t>(payload, 148), 3u);
  EXPECT_EQ(read_at<std::uint32_t>(payload, 152), 3u);
}

TEST(FeatureBuilders, EventDescHoldsAttrNameAndIdsPerEvent) {
  event_entry clock;
  clock.attr.type = PERF_TYPE_SOFTWARE;
  clock.attr.size = 64;  // rewritten to 128 in the payload
  clock.attr.config = PERF_COUNT_SW_CPU_CLOCK;
  clock.name = "cpu-clock";
  clock.ids = {7, 9};
  event_entry dummy;
  dummy.attr.config = PERF_COUNT_SW_DUMMY;
  dummy.name = "dummy:u";
  std::vector<event_entry> events{clock, dummy};

  auto payload = event_desc_payload(events);
  ASSERT_EQ(payload.size(), 8 + (128 + 4 + 68 + 16) + (128 + 4 + 68));
  EXPECT_EQ(read_at<std::uint32_t>(payload, 0), 2u);
  EXPECT_EQ(read_at<std::uint32_t>(payload, 4), 128u);
  auto attr = read_at<perf_event_attr>(payload, 8);
  EXPECT_EQ(attr.size, 128u);
  EXPECT_EQ(attr.config, PERF_COUNT_SW_CPU_CLOCK);
  EXPECT_EQ(read_at<std::uint32_t>(payload, 136), 2u);
  EXPECT_EQ(read_at<std::uint32_t>(payload, 140), 64u);
  EXPECT_EQ(std::memcmp(payload.data() + 144, "cpu-clock", 10), 0);
  EXPECT_EQ(read_at<std::uint64_t>(payload, 208), 7u);
  EXPECT_EQ(read_at<std::uint64_t>(payload, 216), 9u);
  std::size_t second = 224;
  EXPECT_EQ(read_at<perf_event_attr>(payload, second).config, PERF_COUNT_SW_DUMMY);
  EXPECT_EQ(read_at<std::uint32_t>(payload, second + 128), 0u);
  EXPECT_EQ(std::memcmp(payload.data() + second + 136, "dummy:u", 8), 0);
}

TEST(FeatureBuilders, FixedLayoutPayloads) {
  EXPECT_EQ(sample_time_payload(0x0102, 0x0304),
            bytes_of({2, 1, 0, 0, 0, 0, 0, 0, 4, 3, 0, 0, 0, 0, 0, 0}));
  EXPECT_EQ(dir_format_payload(), bytes_of({1, 0, 0, 0, 0, 0, 0, 0}));
  // version 0, type 1 (zstd), level 3, ratio 5, mmap_len 528384 = 0x81000
  EXPECT_EQ(compressed_payload(3, 5, 528384),
            bytes_of({0, 0, 0, 0, 1, 0, 0, 0, 3, 0, 0, 0, 5, 0, 0, 0, 0, 0x10, 8, 0}));
}

TEST(FeatureBuilders, CmdlineStartsWithTheAbsolutePathOfTheExecutable) {
  char exe[PATH_MAX];
  ssize_t length = ::readlink("/proc/self/exe", exe, sizeof exe);
  ASSERT_GT(length, 0);
  std::vector<std::string> argv{"-a", "-g"};
  auto payload = cmdline_payload(argv);

  feature_encoder expected;
  expected.u32(3);
  expected.string(std::string_view(exe, static_cast<std::size_t>(length)));
  for (const auto& arg : argv) expected.string(arg);
  EXPECT_EQ(payload, expected.take());
  EXPECT_EQ(exe[0], '/');
}

TEST(FeatureBuilders, AttrForFileForcesSizeOneHundredTwentyEight) {
  perf_event_attr attr{};
  attr.size = sizeof attr;
  attr.sample_type = PERF_SAMPLE_IP;
  auto written = attr_for_file(attr);
  EXPECT_EQ(written.size, 128u);
  EXPECT_EQ(written.sample_type, PERF_SAMPLE_IP);
}
