// BUILD_ID feature payload: entries laid out byte for byte as perf 6.1 writes them
// (docs/perf-data-format.md, "BUILD_ID entries").
#include <gtest/gtest.h>

#include <cstring>

#include "io/perf_data/feature_encoder.hpp"

namespace arec::io::perf {
namespace {

template <typename T>
T at(const std::vector<std::byte>& bytes, std::size_t offset) {
  T value;
  std::memcpy(&value, bytes.data() + offset, sizeof value);
  return value;
}

TEST(BuildIdPayload, EntriesCarryMiscPidSizeAndPaddedNames) {
  build_id kernel;
  kernel.size = 20;
  for (std::uint8_t i = 0; i < 20; ++i) kernel.bytes[i] = i;
  build_id user;
  user.size = 16;
  user.bytes[0] = 0xaa;
  std::string long_name(70, 'x');
  std::vector<build_id_entry> entries{{1, kernel, "[kernel.kallsyms]"}, {2, user, "/" + long_name}};
  std::vector<std::byte> payload = build_id_payload(entries);
  ASSERT_EQ(payload.size(), 100u + 36u + 128u);
  EXPECT_EQ(at<std::uint32_t>(payload, 0), 0u);
  EXPECT_EQ(at<std::uint16_t>(payload, 4), 0x8001);
  EXPECT_EQ(at<std::uint16_t>(payload, 6), 100);
  EXPECT_EQ(at<std::int32_t>(payload, 8), -1);
  EXPECT_EQ(at<std::uint8_t>(payload, 12 + 19), 19);
  EXPECT_EQ(at<std::uint8_t>(payload, 32), 20);
  EXPECT_EQ(at<std::uint8_t>(payload, 33), 0);
  EXPECT_STREQ(reinterpret_cast<const char*>(payload.data() + 36), "[kernel.kallsyms]");
  EXPECT_EQ(at<std::uint8_t>(payload, 99), 0);
  // The second entry starts right after the first: only 4-byte aligned in general.
  EXPECT_EQ(at<std::uint16_t>(payload, 100 + 4), 0x8002);
  EXPECT_EQ(at<std::uint16_t>(payload, 100 + 6), 36 + 128);
  EXPECT_EQ(at<std::uint8_t>(payload, 100 + 12), 0xaa);
  EXPECT_EQ(at<std::uint8_t>(payload, 100 + 32), 16);
  EXPECT_EQ(std::string(reinterpret_cast<const char*>(payload.data() + 136)), "/" + long_name);
}

}  // namespace
}  // namespace arec::io::perf
