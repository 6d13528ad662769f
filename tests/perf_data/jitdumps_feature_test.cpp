// jitdumps_feature: the captured dumps, what their bound left out and the clock pair survive
// the trip through arec's feature 253, and a damaged section is refused, never read past.
#include "perf_data/jitdumps_feature.hpp"

#include <gtest/gtest.h>

#include <cstring>

#include "perf_data/format_error.hpp"

namespace arec::perf_data {
namespace {

std::vector<std::byte> payload_of(const std::vector<captured_jitdump>& dumps,
                                  file_clocks clocks = {{5, 7}, {9, 11}}) {
  std::vector<stored_jitdump> stored;
  for (const captured_jitdump& dump : dumps)
    stored.push_back({store_perf_map(dump.pid, dump.bytes), dump.left_out});
  return jitdumps_payload(clocks, stored);
}

TEST(JitdumpsFeature, DumpsAndTheClockPairComeBackAsTheyWereCaptured) {
  std::string binary("JiTD\0\x01\xff", 7);
  for (int i = 0; i < 1000; ++i) binary += "code " + std::to_string(i);
  std::vector<captured_jitdump> dumps{{41, binary, 0}, {42, "x", 12345}};
  captured_jitdumps back =
      parse_jitdumps_payload(payload_of(dumps, {{111, 222}, {333, 444}}), 0, "test");
  EXPECT_EQ(back.clocks, (file_clocks{{111, 222}, {333, 444}}));
  ASSERT_EQ(back.dumps.size(), 2u);
  for (std::size_t i = 0; i < 2; ++i) {
    EXPECT_EQ(back.dumps[i].pid, dumps[i].pid);
    EXPECT_EQ(back.dumps[i].bytes, dumps[i].bytes);
    EXPECT_EQ(back.dumps[i].left_out, dumps[i].left_out);
  }
  EXPECT_EQ(payload_of(dumps).size() % 8, 0u);
}

TEST(JitdumpsFeature, ACutSectionOrAnUnknownVersionIsRefused) {
  std::vector<std::byte> payload = payload_of({{7, "JiTD and records", 0}});
  std::vector<std::byte> newer = payload;
  newer[0] = std::byte{2};
  EXPECT_THROW(parse_jitdumps_payload(newer, 0, "rec.data"), format_error);
  payload.resize(payload.size() - 9);
  try {
    parse_jitdumps_payload(payload, 1000, "rec.data");
    FAIL() << "a cut section was read";
  } catch (const format_error& error) {
    EXPECT_GE(error.offset(), 1000u);
    EXPECT_NE(std::string(error.what()).find("jitdump feature"), std::string::npos) << error.what();
  }
}

TEST(JitdumpsFeature, AnOversizedDumpIsRefusedBeforeAnyMemoryIsSizedFromIt) {
  std::vector<std::byte> payload = payload_of({{7, "JiTD", 0}});
  std::uint64_t huge = max_perf_map_bytes + 1;
  std::memcpy(payload.data() + 40 + 8 + 8, &huge, sizeof huge);  // head, left out, pid+0
  EXPECT_THROW(parse_jitdumps_payload(payload, 0, "rec.data"), format_error);
}

}  // namespace
}  // namespace arec::perf_data
