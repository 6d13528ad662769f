#include "record/session/rotated_files.hpp"

#include <gtest/gtest.h>
#include <stdlib.h>
#include <time.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "support/temp_dir.hpp"

namespace arec::record {
namespace {

TEST(RotatedFiles, TimestampIsPerfsLocalTimeToTheCentisecond) {
  ::setenv("TZ", "UTC", 1);
  ::tzset();
  // 2026-11-23 03:49:20.789 UTC
  EXPECT_EQ(output_timestamp(1795405760, 789'000'000), "2026112303492078");
}

TEST(RotatedFiles, NamesNeverRepeatAndFollowThePath) {
  rotated_files files("out.data", 0, [](const std::string&) {});
  std::string first = files.next_name(), second = files.next_name();
  EXPECT_EQ(first.rfind("out.data.", 0), 0u) << first;
  EXPECT_EQ(first.size(), std::string("out.data.").size() + 16) << first;
  EXPECT_LT(first, second) << "two switches in one centisecond must not share a name";
}

TEST(RotatedFiles, OnlyTheNewestAreKept) {
  test::temp_dir dir;
  std::vector<std::string> warnings;
  rotated_files files(dir.file("out"), 2,
                      [&](const std::string& line) { warnings.push_back(line); });
  std::vector<std::string> names;
  for (int i = 0; i < 4; ++i) {
    names.push_back(dir.file("out." + std::to_string(i)));
    std::ofstream(names.back()) << i;
    files.keep(names.back());
  }
  EXPECT_FALSE(std::filesystem::exists(names[0]));
  EXPECT_FALSE(std::filesystem::exists(names[1]));
  EXPECT_TRUE(std::filesystem::exists(names[2]));
  EXPECT_TRUE(std::filesystem::exists(names[3]));
  EXPECT_TRUE(warnings.empty());
}

}  // namespace
}  // namespace arec::record
