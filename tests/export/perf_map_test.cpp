// perf_map: perf's JIT symbol lines parsed, malformed ones skipped, and where a JIT reused
// memory, the symbol written last wins.
#include "export/perf_map.hpp"

#include <gtest/gtest.h>

#include <fstream>

#include "support/temp_dir.hpp"

namespace arec::exporting {
namespace {

TEST(PerfMap, ParsesPerfsLinesAndSkipsMalformedOnes) {
  auto symbols = parse_perf_map(
      "7fa3427c6880 2d8 JS:*jsHotFunction /tmp/hot.js:1:23\n"
      "not a line\n"
      "0x1000 10 with 0x prefix\r\n"
      "2000 0 empty size\n"
      "3000\n");
  ASSERT_EQ(symbols.size(), 2u);
  EXPECT_EQ(symbols[0].name, "with 0x prefix");
  EXPECT_EQ(symbols[0].end, 0x1010u);
  EXPECT_EQ(perf_map_symbol_at(symbols, 0x7fa3427c6880 + 0x100)->name,
            "JS:*jsHotFunction /tmp/hot.js:1:23");
  EXPECT_EQ(perf_map_symbol_at(symbols, 0x7fa3427c6880 + 0x2d8), nullptr) << "one past its end";
  EXPECT_EQ(perf_map_symbol_at(symbols, 0x500), nullptr);
}

TEST(PerfMap, CodeWrittenLaterOverOlderCodeWins) {
  auto symbols = parse_perf_map("1000 100 old_long\n1040 10 new_short\n");
  EXPECT_EQ(perf_map_symbol_at(symbols, 0x1045)->name, "new_short");
  EXPECT_EQ(perf_map_symbol_at(symbols, 0x1080)->name, "old_long");
  auto reversed = parse_perf_map("1040 10 old_short\n1000 100 new_long\n");
  EXPECT_EQ(perf_map_symbol_at(reversed, 0x1045)->name, "new_long");
}

TEST(PerfMap, ReadsEachProcesssMapFromItsDirectory) {
  test::temp_dir dir;
  std::ofstream{dir.file("perf-42.map")} << "1000 100 jit_function\n";
  perf_maps maps{dir.path()};
  EXPECT_EQ(maps.function_at(42, 0x1010), "jit_function");
  EXPECT_EQ(maps.function_at(43, 0x1010), "") << "no map for that process";
  perf_maps none{""};
  EXPECT_EQ(none.function_at(42, 0x1010), "");
}

// The map the recording captured is the process's, not whatever the host's /tmp holds under
// the same pid now (a container's pid, or a pid reused since); a later capture replaces it.
TEST(PerfMap, ACapturedMapComesBeforeTheDirectorysAndALaterOneReplacesIt) {
  test::temp_dir dir;
  std::ofstream{dir.file("perf-42.map")} << "1000 100 host_function\n";
  perf_maps maps{dir.path()};
  maps.use_captured(42, "1000 100 captured_function\n");
  EXPECT_EQ(maps.function_at(42, 0x1010), "captured_function");
  maps.use_captured(42, "1000 100 captured_function\n2000 10 compiled_later\n");
  EXPECT_EQ(maps.function_at(42, 0x2004), "compiled_later");
}

}  // namespace
}  // namespace arec::exporting
