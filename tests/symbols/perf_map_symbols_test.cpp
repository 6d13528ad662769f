// perf_map_symbols: perf's JIT symbol lines parsed, malformed ones skipped, where a JIT reused
// memory the symbol written last wins, and a map of more lines than a table takes keeps its
// last ones, counting the others.
#include "symbols/perf_map_symbols.hpp"

#include <gtest/gtest.h>

#include <string>

namespace arec::symbols {
namespace {

std::string name_at(const perf_map_table& table, std::uint64_t address) {
  const perf_map_symbol* symbol = table.at(address);
  return symbol ? std::string(table.name(*symbol)) : "(none)";
}

TEST(PerfMapSymbols, ParsesPerfsLinesAndSkipsMalformedOnes) {
  perf_map_table symbols(
      "7fa3427c6880 2d8 JS:*jsHotFunction /tmp/hot.js:1:23\n"
      "not a line\n"
      "0x1000 10 with 0x prefix\r\n"
      "2000 0 empty size\n"
      "3000\n");
  ASSERT_EQ(symbols.size(), 2u);
  EXPECT_EQ(symbols.name(symbols.symbols()[0]), "with 0x prefix");
  EXPECT_EQ(symbols.symbols()[0].end, 0x1010u);
  EXPECT_EQ(name_at(symbols, 0x7fa3427c6880 + 0x100), "JS:*jsHotFunction /tmp/hot.js:1:23");
  EXPECT_EQ(symbols.at(0x7fa3427c6880 + 0x2d8), nullptr) << "one past its end";
  EXPECT_EQ(symbols.at(0x500), nullptr);
  EXPECT_EQ(symbols.left_out(), 0u);
}

TEST(PerfMapSymbols, CodeWrittenLaterOverOlderCodeWins) {
  perf_map_table symbols("1000 100 old_long\n1040 10 new_short\n");
  EXPECT_EQ(name_at(symbols, 0x1045), "new_short");
  EXPECT_EQ(name_at(symbols, 0x1080), "old_long");
  perf_map_table reversed("1040 10 old_short\n1000 100 new_long\n");
  EXPECT_EQ(name_at(reversed, 0x1045), "new_long");
  perf_map_table same_start("1000 10 first\n1000 10 second\n");
  EXPECT_EQ(name_at(same_start, 0x1004), "second");
}

// A map is text someone else wrote: one of millions of 6-byte lines ("1 1 a") used to cost 56
// bytes a line and a sort buffer (GBs for a 100 MiB map). The table keeps at most `max`
// lines, the last ones written (the code that runs now), and says how many it did not read.
TEST(PerfMapSymbols, AMapOfMoreLinesThanTheBoundKeepsItsLastOnesAndCountsTheRest) {
  perf_map_table hex("1000 10 a\n1010 10 b\n1020 10 c\n", 2);
  EXPECT_EQ(name_at(hex, 0x1004), "(none)") << "the first line is left out";
  EXPECT_EQ(name_at(hex, 0x1014), "b");
  EXPECT_EQ(name_at(hex, 0x1024), "c");
  EXPECT_EQ(hex.left_out(), 1u);
  EXPECT_LE(sizeof(perf_map_symbol), 24u) << "a symbol costs its addresses and a name offset";
  EXPECT_LE(perf_map_table::max_symbols, std::size_t{1} << 20);
  std::string many;
  for (std::size_t i = 0; i < perf_map_table::max_symbols + 3; ++i) many += "1 1 a\n";
  perf_map_table bounded(many);
  EXPECT_EQ(bounded.size(), perf_map_table::max_symbols);
  EXPECT_EQ(bounded.left_out(), 3u);
}

}  // namespace
}  // namespace arec::symbols
