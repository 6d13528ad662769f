// perf_map_symbols: perf's JIT symbol lines parsed, malformed ones skipped, and where a JIT
// reused memory, the symbol written last wins.
#include "symbols/perf_map_symbols.hpp"

#include <gtest/gtest.h>

namespace arec::symbols {
namespace {

TEST(PerfMapSymbols, ParsesPerfsLinesAndSkipsMalformedOnes) {
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

TEST(PerfMapSymbols, CodeWrittenLaterOverOlderCodeWins) {
  auto symbols = parse_perf_map("1000 100 old_long\n1040 10 new_short\n");
  EXPECT_EQ(perf_map_symbol_at(symbols, 0x1045)->name, "new_short");
  EXPECT_EQ(perf_map_symbol_at(symbols, 0x1080)->name, "old_long");
  auto reversed = parse_perf_map("1040 10 old_short\n1000 100 new_long\n");
  EXPECT_EQ(perf_map_symbol_at(reversed, 0x1045)->name, "new_long");
}

}  // namespace
}  // namespace arec::symbols
