// BUILD_ID feature payload: entries laid out byte for byte as perf 6.1 writes them
// (docs/perf-data-format.md, "BUILD_ID entries").
#include <gtest/gtest.h>

#include <cstring>

#include "perf_data/build_id_feature.hpp"
#include "perf_data/format_error.hpp"

namespace arec::perf_data {
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

TEST(BuildIdPayload, ParsesBackWhatItWrote) {
  build_id kernel;
  kernel.size = 20;
  kernel.bytes.fill(0x11);
  build_id short_id;
  short_id.size = 8;
  short_id.bytes[7] = 0x7f;
  std::vector<build_id_entry> entries{{1, kernel, "[kernel.kallsyms]"},
                                      {2, short_id, "/" + std::string(200, 'y')},
                                      {2, kernel, "[vdso]"}};
  std::vector<build_id_entry> back = parse_build_id_payload(build_id_payload(entries), 4096, "f");
  ASSERT_EQ(back.size(), entries.size());
  for (std::size_t i = 0; i < entries.size(); ++i) {
    EXPECT_EQ(back[i].cpumode, entries[i].cpumode) << i;
    EXPECT_EQ(back[i].id, entries[i].id) << i;
    EXPECT_EQ(back[i].filename, entries[i].filename) << i;
  }
}

// perf before 5.x wrote no size byte: the id is its 20 bytes without the trailing zeros.
TEST(BuildIdPayload, AnEntryWithoutASizeByteTakesTheIdUpToItsTrailingZeros) {
  build_id id;
  id.size = 20;
  id.bytes.fill(0);
  for (std::uint8_t i = 0; i < 16; ++i) id.bytes[i] = static_cast<std::uint8_t>(i + 1);
  std::vector<std::byte> payload = build_id_payload(std::vector<build_id_entry>{{2, id, "/bin/x"}});
  payload[5] = std::byte{0};  // misc's high byte: BUILD_ID_SIZE cleared
  payload[32] = std::byte{0};
  std::vector<build_id_entry> back = parse_build_id_payload(payload, 0, "f");
  ASSERT_EQ(back.size(), 1u);
  EXPECT_EQ(back[0].id.size, 16);
  EXPECT_EQ(back[0].filename, "/bin/x");
}

TEST(BuildIdPayload, ACutEntryIsAFormatErrorAtItsOffset) {
  build_id id;
  id.size = 20;
  std::vector<std::byte> payload = build_id_payload(std::vector<build_id_entry>{{2, id, "/bin/x"}});
  payload.resize(payload.size() - 10);
  try {
    parse_build_id_payload(payload, 1000, "rec.data");
    FAIL() << "a cut entry was accepted";
  } catch (const format_error& error) {
    EXPECT_EQ(std::string(error.what()).find("rec.data: offset 1036: "), 0u) << error.what();
  }
}

}  // namespace
}  // namespace arec::perf_data
