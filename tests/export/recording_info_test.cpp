// recording_info: a captured jitdump names its process's code after the process's perf map;
// the wall-clock window of the samples, also from corrupt sample times, which
// must give a window without signed overflow (UBSan aborts on one in the ASan build).
#include "export/recording_info.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "perf_data/jitdumps_feature.hpp"
#include "support/jitdump_bytes.hpp"

namespace arec::exporting {
namespace {

constexpr std::uint64_t top_bit = std::uint64_t{1} << 63;

TEST(RecordingInfo, WallWindowFromTheClockOffset) {
  EXPECT_EQ(sample_wall_window(10, 20, 5, 1000), (std::pair<std::int64_t, std::int64_t>{15, 25}));
}

TEST(RecordingInfo, WallWindowEndsAtTheFileWithoutAnOffset) {
  EXPECT_EQ(sample_wall_window(10, 20, std::nullopt, 1000),
            (std::pair<std::int64_t, std::int64_t>{990, 1000}));
}

TEST(RecordingInfo, WallWindowOfCorruptTimesDoesNotOverflow) {
  // An offset that would carry the time past 2^63 - 1: the file's time places the window.
  EXPECT_EQ(sample_wall_window(top_bit - 10, top_bit - 5, std::int64_t{1} << 62, 1000),
            (std::pair<std::int64_t, std::int64_t>{995, 1000}));
  // A span of 2^63: it starts at the epoch.
  EXPECT_EQ(sample_wall_window(1, top_bit + 1, std::nullopt, 1000),
            (std::pair<std::int64_t, std::int64_t>{0, 1000}));
  EXPECT_EQ(sample_wall_window(1, std::numeric_limits<std::uint64_t>::max(), -5, 1000),
            (std::pair<std::int64_t, std::int64_t>{0, 1000}));
}

// A dump timed by the CPU's counter cannot be placed on the samples' clock: its code is named
// as a perf map's, after the process's own map.
TEST(RecordingInfo, ACapturedJitdumpTimedByTheCpusCounterNamesItsProcesssCodeAfterItsPerfMap) {
  perf_data::feature_set features;
  features.set(perf_data::feature_arec_perf_maps,
               perf_data::perf_maps_payload({{{7, "1000 10 fromTheMap\n"}}}));
  std::string tsc = test::jitdump_header(false, test::jitdump_magic, 1234, 1);
  std::vector<perf_data::stored_jitdump> dumps{
      {perf_data::store_perf_map(
           7, tsc + test::jitdump_code_load("JS:*fromTheDump", 8, false, 0x1000)),
       0},
      {perf_data::store_perf_map(9, tsc + test::jitdump_code_load("JS:*alone", 8, false, 0x2000)),
       0}};
  features.set(perf_data::feature_arec_jitdumps,
               perf_data::jitdumps_payload({{1, 2}, {3, 4}}, dumps));
  std::vector<perf_data::captured_perf_map> maps = recorded_jit_names(features).perf_maps;
  ASSERT_EQ(maps.size(), 2u);
  EXPECT_EQ(maps[0].pid, 7);
  EXPECT_EQ(maps[0].text, "1000 10 fromTheMap\n1000 8 JS:*fromTheDump\n");
  EXPECT_EQ(maps[1].pid, 9);
  EXPECT_EQ(maps[1].text, "2000 8 JS:*alone\n");
}

// A dump whose times the clock pairs place names its code by time, not in the perf map; its
// process is listed still (a live export forgets the processes it does not list).
TEST(RecordingInfo, ACapturedJitdumpOfMonotonicTimesNamesItsCodeByTime) {
  perf_data::feature_set features;
  std::vector<perf_data::stored_jitdump> dumps{
      {perf_data::store_perf_map(7,
                                 test::jitdump_header() +
                                     test::jitdump_code_load("JS:*first", 8, false, 0x1000, 1100) +
                                     test::jitdump_code_load("JS:*second", 8, false, 0x1000, 1500)),
       0}};
  features.set(perf_data::feature_arec_jitdumps,
               perf_data::jitdumps_payload({{1000, 11000}, {2000, 12000}}, dumps));
  recorded_jit names = recorded_jit_names(features);
  std::vector<perf_data::captured_perf_map>& maps = names.perf_maps;
  ASSERT_EQ(maps.size(), 1u);
  EXPECT_EQ(maps[0].pid, 7);
  EXPECT_EQ(maps[0].text, "");
  jit_code_by_time& code = names.by_time;
  EXPECT_EQ(code.untimed_dumps, 0u);
  ASSERT_EQ(code.processes.size(), 1u);
  EXPECT_EQ(code.processes[0].pid, 7);
  EXPECT_EQ(code.processes[0].code.name_at(0x1004, 11050), "");
  EXPECT_EQ(code.processes[0].code.name_at(0x1004, 11200), "JS:*first");
  EXPECT_EQ(code.processes[0].code.name_at(0x1004, 11600), "JS:*second");
}

TEST(RecordingInfo, ADamagedJitdumpFeatureCostsOnlyItsNames) {
  perf_data::feature_set features;
  features.set(perf_data::feature_arec_perf_maps,
               perf_data::perf_maps_payload({{{7, "1000 10 fromTheMap\n"}}}));
  features.set(perf_data::feature_arec_jitdumps, std::vector<std::byte>(12));
  std::vector<perf_data::captured_perf_map> maps = recorded_jit_names(features).perf_maps;
  ASSERT_EQ(maps.size(), 1u);
  EXPECT_EQ(maps[0].text, "1000 10 fromTheMap\n");
}

}  // namespace
}  // namespace arec::exporting
