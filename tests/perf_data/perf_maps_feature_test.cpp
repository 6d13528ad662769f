// perf_maps_feature, container_ids_feature: what arec captured of processes survives the trip
// through its own feature sections, and a damaged section is refused with the offset of the
// problem, never read past its end.
#include "perf_data/perf_maps_feature.hpp"

#include <gtest/gtest.h>

#include <cstring>

#include "perf_data/container_ids_feature.hpp"
#include "perf_data/format_error.hpp"

namespace arec::perf_data {
namespace {

std::vector<captured_perf_map> round_trip(const std::vector<captured_perf_map>& maps) {
  std::vector<std::byte> payload = perf_maps_payload(maps);
  return parse_perf_maps_payload(payload, 0, "test");
}

TEST(PerfMapsFeature, MapsComeBackAsTheyWereCaptured) {
  std::string big;
  for (int i = 0; i < 20000; ++i)
    big += "7f00" + std::to_string(1000 + i) + " 40 LazyCompile:*f" + std::to_string(i) +
           " /app/x.js:1:2\n";
  std::vector<captured_perf_map> maps{{41, "1000 10 one\n"}, {42, ""}, {43, big}};
  std::vector<captured_perf_map> back = round_trip(maps);
  ASSERT_EQ(back.size(), 3u);
  for (std::size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(back[i].pid, maps[i].pid);
    EXPECT_EQ(back[i].text, maps[i].text);
  }
  EXPECT_LT(perf_maps_payload(maps).size(), big.size() / 4) << "the text is stored compressed";
  EXPECT_EQ(perf_maps_payload(maps).size() % 8, 0u);
}

TEST(PerfMapsFeature, ACutSectionIsRefusedWithItsOffset) {
  std::vector<std::byte> payload = perf_maps_payload({{{7, "1000 10 one\n"}}});
  payload.resize(payload.size() - 9);
  try {
    parse_perf_maps_payload(payload, 1000, "rec.data");
    FAIL() << "a cut section was read";
  } catch (const format_error& error) {
    EXPECT_GE(error.offset(), 1000u);
    EXPECT_NE(std::string(error.what()).find("rec.data"), std::string::npos) << error.what();
  }
}

TEST(PerfMapsFeature, AnUnknownVersionOrAnOversizedMapIsRefused) {
  std::vector<std::byte> payload = perf_maps_payload({{{7, "1000 10 one\n"}}});
  std::vector<std::byte> newer = payload;
  newer[0] = std::byte{2};
  EXPECT_THROW(parse_perf_maps_payload(newer, 0, "rec.data"), format_error);
  std::uint64_t huge = max_perf_map_bytes + 1;
  std::memcpy(payload.data() + 16, &huge, sizeof huge);  // the first map's text size
  EXPECT_THROW(parse_perf_maps_payload(payload, 0, "rec.data"), format_error);
}

TEST(PerfMapsFeature, ATextSizeThatDisagreesWithItsFrameIsRefused) {
  std::vector<std::byte> payload = perf_maps_payload({{{7, "1000 10 one\n"}}});
  std::uint64_t wrong = 5;
  std::memcpy(payload.data() + 16, &wrong, sizeof wrong);
  EXPECT_THROW(parse_perf_maps_payload(payload, 0, "rec.data"), format_error);
}

// Random text, which zstd cannot compress: `bytes` of it.
std::string incompressible(std::size_t bytes, std::uint64_t seed) {
  std::string text(bytes, '\0');
  for (std::size_t i = 0; i + 8 <= bytes; i += 8) {
    seed ^= seed << 13, seed ^= seed >> 7, seed ^= seed << 17;
    std::memcpy(text.data() + i, &seed, 8);
  }
  return text;
}

// Two processes with 140 MiB maps made a feature of 293 MB that every reader refused (the
// writer bounded one map, the readers the whole section): the writer now leaves out what the
// readers would refuse, with the same constant, and they read the rest.
TEST(PerfMapsFeature, TheWriterLeavesOutWhatNoReaderWouldAccept) {
  std::vector<stored_perf_map> maps{store_perf_map(41, incompressible(140u << 20, 1)),
                                    store_perf_map(42, incompressible(140u << 20, 2)),
                                    store_perf_map(43, "1000 10 small\n")};
  std::vector<std::byte> payload = perf_maps_payload(maps);
  EXPECT_LE(payload.size(), std::uint64_t{256} << 20) << "perf_header reads no larger feature";
  EXPECT_LE(payload.size(), max_feature_bytes);
  std::vector<captured_perf_map> back = parse_perf_maps_payload(payload, 0, "test");
  ASSERT_EQ(back.size(), 2u);
  EXPECT_EQ(back[0].pid, 41);
  EXPECT_EQ(back[1].pid, 43);
  perf_maps_room room;
  EXPECT_TRUE(room.take(maps[0]));
  EXPECT_FALSE(room.take(maps[1]));
  EXPECT_TRUE(room.take(maps[2]));
}

TEST(ContainerIdsFeature, ProcessesComeBackWithTheirContainers) {
  std::vector<process_container> processes{{41, std::string(64, 'a')}, {42, std::string(64, 'b')}};
  std::vector<std::byte> payload = container_ids_payload(processes);
  std::vector<process_container> back = parse_container_ids_payload(payload, 0, "test");
  ASSERT_EQ(back.size(), 2u);
  EXPECT_EQ(back[1].pid, 42);
  EXPECT_EQ(back[1].id, processes[1].id);
  payload.resize(payload.size() - 1);
  EXPECT_THROW(parse_container_ids_payload(payload, 0, "test"), format_error);
}

}  // namespace
}  // namespace arec::perf_data
