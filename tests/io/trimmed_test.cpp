// trimmed: the one blank-trimming helper of sysfs, /proc, perfconfig and perf-output readers.
#include "io/trimmed.hpp"

#include <gtest/gtest.h>

namespace arec::io {
namespace {

TEST(Trimmed, DropsBlanksAndLineEndsOnBothSides) {
  EXPECT_EQ(trimmed(" \t0-3,5\n"), "0-3,5");
  EXPECT_EQ(trimmed("dir = /cache\r"), "dir = /cache");
  EXPECT_EQ(trimmed("config:0-7\n"), "config:0-7");
}

TEST(Trimmed, KeepsBlanksInside) {
  EXPECT_EQ(trimmed("  hot_loop  [.] hot  "), "hot_loop  [.] hot");
}

TEST(Trimmed, AllBlanksIsEmpty) {
  EXPECT_EQ(trimmed(" \t\r\n"), "");
  EXPECT_EQ(trimmed(""), "");
}

}  // namespace
}  // namespace arec::io
