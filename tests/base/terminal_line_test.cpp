#include "base/terminal_line.hpp"

#include <gtest/gtest.h>

namespace arec::base {
namespace {

TEST(TerminalLine, BytesUseDecimalUnits) {
  EXPECT_EQ(base::format_bytes(0), "0 B");
  EXPECT_EQ(base::format_bytes(999), "999 B");
  EXPECT_EQ(base::format_bytes(1500), "1.5 kB");
  EXPECT_EQ(base::format_bytes(999'960), "1.0 MB");
  EXPECT_EQ(base::format_bytes(4'200'000'000), "4.2 GB");
}

TEST(TerminalLine, TextIsCutToLeaveTheLastColumnFree) {
  EXPECT_EQ(base::fit_to_width("abcdef", 4), "abc");
  EXPECT_EQ(base::fit_to_width("abc", 4), "abc");
  EXPECT_EQ(base::fit_to_width("abcdef", 0), "abcdef");
}

}  // namespace
}  // namespace arec::base
