// trimmed: the one blank-trimming helper of sysfs, /proc, perfconfig and perf-output readers.
#include "base/trimmed.hpp"

#include <gtest/gtest.h>

namespace arec::base {
namespace {

TEST(Trimmed, DropsBlanksAndLineEndsOnBothSides) {
  EXPECT_EQ(base::trimmed(" \t0-3,5\n"), "0-3,5");
  EXPECT_EQ(base::trimmed("dir = /cache\r"), "dir = /cache");
  EXPECT_EQ(base::trimmed("config:0-7\n"), "config:0-7");
}

TEST(Trimmed, KeepsBlanksInside) {
  EXPECT_EQ(base::trimmed("  hot_loop  [.] hot  "), "hot_loop  [.] hot");
}

TEST(Trimmed, AllBlanksIsEmpty) {
  EXPECT_EQ(base::trimmed(" \t\r\n"), "");
  EXPECT_EQ(base::trimmed(""), "");
}

}  // namespace
}  // namespace arec::base
