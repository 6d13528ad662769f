#include "host/cpu_list.hpp"

#include <gtest/gtest.h>

using arec::host::format_cpu_list;
using arec::host::parse_cpu_list;

TEST(CpuList, ParsesSinglesAndRanges) {
  EXPECT_EQ(parse_cpu_list("0,2-3"), (std::vector<int>{0, 2, 3}));
  EXPECT_EQ(parse_cpu_list("5"), (std::vector<int>{5}));
  EXPECT_EQ(parse_cpu_list("0-1\n"), (std::vector<int>{0, 1}));
}

TEST(CpuList, SortsAndRemovesDuplicates) {
  EXPECT_EQ(parse_cpu_list("3,1-2,2"), (std::vector<int>{1, 2, 3}));
}

TEST(CpuList, EmptyTextIsEmptyList) {
  EXPECT_TRUE(parse_cpu_list("").empty());
  EXPECT_TRUE(parse_cpu_list("\n").empty());
}

TEST(CpuList, RejectsMalformedEntriesNamingThem) {
  for (const char* bad : {"a", "1-", "-1", "1,,2", "1,", "3-1", "1.5", "99999"}) {
    try {
      parse_cpu_list(bad);
      ADD_FAILURE() << "accepted '" << bad << "'";
    } catch (const std::invalid_argument& error) {
      EXPECT_FALSE(std::string(error.what()).empty());
    }
  }
  try {
    parse_cpu_list("0,x-2");
  } catch (const std::invalid_argument& error) {
    EXPECT_NE(std::string(error.what()).find("x-2"), std::string::npos) << error.what();
  }
}

TEST(CpuList, FormatsCanonically) {
  std::vector<int> cpus{0, 1, 2, 3, 8, 10, 11};
  EXPECT_EQ(format_cpu_list(cpus), "0-3,8,10-11");
  EXPECT_EQ(format_cpu_list(std::vector<int>{}), "");
  EXPECT_EQ(format_cpu_list(parse_cpu_list("4,0-2")), "0-2,4");
}
