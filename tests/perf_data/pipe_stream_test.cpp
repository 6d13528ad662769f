// The head of a pipe-mode stream, record by record, with the sizes perf 6.1 writes.
#include "perf_data/pipe_stream.hpp"

#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

namespace arec::perf_data {
namespace {

struct head_record {
  record_header header;
  std::vector<std::byte> body;  // after the header, within header.size
};

template <typename T>
T load(const std::vector<std::byte>& bytes, std::size_t at) {
  T value{};
  std::memcpy(&value, bytes.data() + at, sizeof value);
  return value;
}

// Splits the head after its 16-byte pipe header; a HEADER_TRACING_DATA record's blob (outside
// its size) is returned as the next record's body, with type 0.
std::vector<head_record> records_of(const std::vector<std::byte>& head) {
  std::vector<head_record> records;
  std::size_t at = 16;
  while (at < head.size()) {
    auto header = load<record_header>(head, at);
    records.push_back({header, {head.begin() + at + 8, head.begin() + at + header.size}});
    at += header.size;
    if (header.type == record_header_tracing_data) {
      auto blob = load<std::uint32_t>(head, at - 8);
      records.push_back({{0, 0, 0}, {head.begin() + at, head.begin() + at + blob}});
      at += blob;
    }
  }
  return records;
}

std::vector<std::byte> bytes_of(std::string_view text) {
  const auto* data = reinterpret_cast<const std::byte*>(text.data());
  return {data, data + text.size()};
}

TEST(PipeStream, HeadIsHeaderAttrsFeaturesNamesAndTracingData) {
  event_entry clock;
  clock.attr.size = sizeof(perf_event_attr);
  clock.attr.type = 1;
  clock.name = "cpu-clock";
  clock.ids = {31325, 31326};
  feature_set features;
  features.set(feature_hostname, bytes_of("host"));
  features.set(feature_build_id, bytes_of("left out"));
  features.set(feature_cache, bytes_of("left out"));
  features.set(feature_tracing_data, std::vector<std::byte>(6317, std::byte{7}));
  std::vector<std::byte> head = pipe_stream_head(std::vector<event_entry>{clock}, features);

  EXPECT_EQ(load<std::uint64_t>(head, 0), file_magic);
  EXPECT_EQ(load<std::uint64_t>(head, 8), 16u) << "the size that tells readers it is a pipe";
  std::vector<head_record> records = records_of(head);
  ASSERT_EQ(records.size(), 6u);

  EXPECT_EQ(records[0].header.type, record_header_attr);
  EXPECT_EQ(records[0].header.size, 8u + 128 + 16);  // as perf 6.1: 152 for two ids
  EXPECT_EQ(load<std::uint32_t>(records[0].body, 4), 128u) << "attr.size as in a file";
  EXPECT_EQ(load<std::uint64_t>(records[0].body, 136), 31326u);

  EXPECT_EQ(records[1].header.type, record_header_feature);
  EXPECT_EQ(load<std::uint64_t>(records[1].body, 0), std::uint64_t{feature_hostname});
  EXPECT_EQ(std::string(reinterpret_cast<const char*>(records[1].body.data() + 8), 4), "host");
  EXPECT_EQ(records[2].header.type, record_header_feature);
  EXPECT_EQ(records[2].header.size, 16u) << "the end of the list has no payload";
  EXPECT_EQ(load<std::uint64_t>(records[2].body, 0), std::uint64_t{feature_last_known});

  EXPECT_EQ(records[3].header.type, record_event_update);
  EXPECT_EQ(records[3].header.size, 56u) << "perf 6.1's size for the name cpu-clock";
  EXPECT_EQ(load<std::uint64_t>(records[3].body, 0), 2u) << "NAME";
  EXPECT_EQ(load<std::uint64_t>(records[3].body, 8), 31325u);
  EXPECT_STREQ(reinterpret_cast<const char*>(records[3].body.data() + 16), "cpu-clock");

  EXPECT_EQ(records[4].header.type, record_header_tracing_data);
  EXPECT_EQ(records[4].header.size, 16u);
  EXPECT_EQ(load<std::uint32_t>(records[4].body, 0), 6320u) << "padded to 8, as perf";
  ASSERT_EQ(records[5].body.size(), 6320u);
  EXPECT_EQ(records[5].body[6316], std::byte{7});
  EXPECT_EQ(records[5].body[6317], std::byte{0});
}

TEST(PipeStream, FeaturesPerfLeavesOutOfAPipe) {
  for (feature bit : {feature_tracing_data, feature_build_id, feature_cache, feature_dir_format})
    EXPECT_FALSE(travels_in_pipe(bit)) << bit;
  for (feature bit : {feature_hostname, feature_cmdline, feature_event_desc, feature_compressed,
                      feature_pmu_mappings, feature_mem_topology, feature_clockid})
    EXPECT_TRUE(travels_in_pipe(bit)) << bit;
}

}  // namespace
}  // namespace arec::perf_data
