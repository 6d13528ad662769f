#include "export/profile_subset.hpp"

#include <gtest/gtest.h>

namespace arec::exporting {
namespace {

// Three locations in two mappings; only the second location is sampled.
profile three_locations_one_sampled() {
  profile p;
  p.strings = {"", "samples", "count", "libc.so", "main_exe", "unused_fn", "hot_fn", "comm", "x"};
  p.sample_types = {{1, 2}};
  p.period_type = {1, 2};
  p.mappings = {{.id = 2, .filename = 4}, {.id = 1, .filename = 3}};  // order kept, ids old
  p.functions = {{.id = 1, .name = 5, .filename = 4}, {.id = 2, .name = 6, .filename = 3}};
  p.locations = {{.id = 1, .mapping_id = 2, .address = 0x10, .function_id = 1},
                 {.id = 2, .mapping_id = 1, .address = 0x20, .function_id = 2},
                 {.id = 3, .mapping_id = 2, .address = 0x30, .function_id = 0}};
  p.samples = {{.location_ids = {2}, .values = {7}, .labels = {{.key = 7, .str = 8}}}};
  return p;
}

TEST(ProfileSubset, KeepsOnlyWhatTheSamplesReachRenumbered) {
  profile p = three_locations_one_sampled();
  keep_only_referenced(p);
  ASSERT_EQ(p.locations.size(), 1u);
  EXPECT_EQ(p.locations[0].id, 1u);
  EXPECT_EQ(p.locations[0].address, 0x20u);
  EXPECT_EQ(p.samples[0].location_ids, std::vector<std::uint64_t>{1});
  ASSERT_EQ(p.functions.size(), 1u);
  EXPECT_EQ(p.locations[0].function_id, 1u);
  EXPECT_EQ(p.strings[static_cast<std::size_t>(p.functions[0].name)], "hot_fn");
  ASSERT_EQ(p.mappings.size(), 1u);
  EXPECT_EQ(p.mappings[0].id, 1u);
  EXPECT_EQ(p.locations[0].mapping_id, 1u);
  EXPECT_EQ(p.strings[static_cast<std::size_t>(p.mappings[0].filename)], "libc.so");
  EXPECT_EQ(p.strings,
            (std::vector<std::string>{"", "samples", "count", "comm", "x", "libc.so", "hot_fn"}));
  EXPECT_EQ(p.strings[static_cast<std::size_t>(p.samples[0].labels[0].key)], "comm");
  EXPECT_EQ(p.strings[static_cast<std::size_t>(p.period_type.unit)], "count");
}

TEST(ProfileSubset, AnEmptyWindowKeepsItsTypesOnly) {
  profile p = three_locations_one_sampled();
  p.samples.clear();
  keep_only_referenced(p);
  EXPECT_TRUE(p.locations.empty());
  EXPECT_TRUE(p.functions.empty());
  EXPECT_TRUE(p.mappings.empty());
  EXPECT_EQ(p.strings, (std::vector<std::string>{"", "samples", "count"}));
}

}  // namespace
}  // namespace arec::exporting
