#include "export/profile_split.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace arec::exporting {
namespace {

// `count` samples; sample i has the stack fn_i <- shared_main (leaf first) and value i + 1.
profile samples_with_own_leaves(std::size_t count) {
  profile p;
  p.strings = {"", "samples", "count", "exe", "shared_main"};
  p.sample_types = {{1, 2}};
  p.period_type = {1, 2};
  p.time_nanos = 1000;
  p.duration_nanos = 15;
  p.mappings = {{.id = 1, .filename = 3}};
  p.functions = {{.id = 1, .name = 4, .filename = 3}};
  p.locations = {{.id = 1, .mapping_id = 1, .address = 0x1000, .function_id = 1}};
  for (std::size_t i = 0; i < count; ++i) {
    p.strings.push_back("fn_" + std::to_string(i));
    p.functions.push_back({.id = p.functions.size() + 1,
                           .name = static_cast<std::int64_t>(p.strings.size() - 1),
                           .filename = 3});
    p.locations.push_back({.id = p.locations.size() + 1,
                           .mapping_id = 1,
                           .address = 0x2000 + i,
                           .function_id = p.functions.size()});
    p.samples.push_back(
        {.location_ids = {p.locations.size(), 1}, .values = {static_cast<std::int64_t>(i + 1)}});
  }
  return p;
}

// The function names of a sample's stack, leaf first, looked up in its own profile's tables.
std::vector<std::string> stack_names(const profile& p, const profile_sample& sample) {
  std::vector<std::string> names;
  for (std::uint64_t id : sample.location_ids) {
    const profile_location& where = p.locations.at(id - 1);
    const profile_function& function = p.functions.at(where.function_id - 1);
    names.push_back(p.strings.at(static_cast<std::size_t>(function.name)));
  }
  return names;
}

TEST(ProfileSplit, ASmallProfileStaysWhole) {
  std::vector<profile> parts = split_samples(samples_with_own_leaves(3), 3);
  ASSERT_EQ(parts.size(), 1u);
  EXPECT_EQ(parts[0].samples.size(), 3u);
  EXPECT_EQ(split_samples(samples_with_own_leaves(5), 0).size(), 1u);  // 0: no limit
}

TEST(ProfileSplit, EachPartHoldsAtMostTheLimitAndOnlyItsOwnTables) {
  std::vector<profile> parts = split_samples(samples_with_own_leaves(7), 3);
  ASSERT_EQ(parts.size(), 3u);
  EXPECT_EQ(parts[0].samples.size(), 3u);
  EXPECT_EQ(parts[1].samples.size(), 3u);
  EXPECT_EQ(parts[2].samples.size(), 1u);
  std::int64_t total = 0;
  std::size_t sample_number = 0;
  for (const profile& part : parts) {
    EXPECT_EQ(part.time_nanos, 1000);
    EXPECT_EQ(part.duration_nanos, 15);
    EXPECT_EQ(part.strings.at(static_cast<std::size_t>(part.sample_types.at(0).type)), "samples");
    EXPECT_EQ(part.locations.size(), part.samples.size() + 1) << "its leaves and shared_main";
    EXPECT_EQ(part.functions.size(), part.samples.size() + 1);
    EXPECT_EQ(part.mappings.size(), 1u);
    for (const profile_sample& sample : part.samples) {
      total += sample.values.at(0);
      EXPECT_EQ(stack_names(part, sample),
                (std::vector<std::string>{"fn_" + std::to_string(sample_number), "shared_main"}));
      ++sample_number;
    }
  }
  EXPECT_EQ(total, 1 + 2 + 3 + 4 + 5 + 6 + 7);
}

TEST(ProfileSplit, DeepStacksKeepTheirInnermostFramesAndAreCounted) {
  profile p = samples_with_own_leaves(3);
  p.samples[1].location_ids = {3, 2, 4, 1};  // fn_1 <- fn_0 <- fn_2 <- shared_main
  EXPECT_EQ(truncate_stacks(p, 2), 1u);
  ASSERT_EQ(p.samples.size(), 3u);
  EXPECT_EQ(stack_names(p, p.samples[1]), (std::vector<std::string>{"fn_1", "fn_0"}));
  EXPECT_EQ(stack_names(p, p.samples[0]), (std::vector<std::string>{"fn_0", "shared_main"}));
  EXPECT_EQ(truncate_stacks(p, 2), 0u) << "nothing deeper is left";
  EXPECT_EQ(truncate_stacks(p, 0), 0u) << "0: no limit";
}

TEST(ProfileSplit, CutCallersThatNoSampleReachesLeaveTheTables) {
  profile p = samples_with_own_leaves(1);
  p.samples[0].location_ids = {2, 1};
  p.strings.push_back("deep_root");
  p.functions.push_back({.id = 3, .name = static_cast<std::int64_t>(p.strings.size() - 1)});
  p.locations.push_back({.id = 3, .mapping_id = 1, .address = 0x3000, .function_id = 3});
  p.samples[0].location_ids.push_back(3);
  EXPECT_EQ(truncate_stacks(p, 2), 1u);
  EXPECT_EQ(p.locations.size(), 2u);
  for (const std::string& text : p.strings) EXPECT_NE(text, "deep_root");
}

// Three samples of process 7 ("app", which then execs "worker") and one of process 9 ("db", in
// a container): three series, in the order they first appear, each with its own tables.
TEST(ProfileSplit, ByProcessGroupsSamplesByPidAndCommAndNamesThem) {
  profile p = samples_with_own_leaves(4);
  auto add = [&](std::string text) {
    p.strings.push_back(std::move(text));
    return static_cast<std::int64_t>(p.strings.size() - 1);
  };
  std::int64_t pid = add("pid"), comm = add("comm"), container = add("container_id");
  std::int64_t app = add("app"), worker = add("worker"), db = add("db"), id = add("c0ffee");
  p.samples[0].labels = {{pid, 0, 7}, {comm, app, 0}};
  p.samples[1].labels = {{pid, 0, 9}, {comm, db, 0}, {container, id, 0}};
  p.samples[2].labels = {{pid, 0, 7}, {comm, app, 0}};
  p.samples[3].labels = {{pid, 0, 7}, {comm, worker, 0}};
  std::vector<process_samples> groups = group_by_process(p);
  EXPECT_TRUE(p.samples.empty()) << "the samples moved into the groups";
  ASSERT_EQ(groups.size(), 3u);
  using labels = std::vector<std::pair<std::string, std::string>>;
  EXPECT_EQ(groups[0].labels, (labels{{"pid", "7"}, {"comm", "app"}}));
  EXPECT_EQ(groups[1].labels, (labels{{"pid", "9"}, {"comm", "db"}, {"container_id", "c0ffee"}}));
  EXPECT_EQ(groups[2].labels, (labels{{"pid", "7"}, {"comm", "worker"}}));
  ASSERT_EQ(groups[0].samples.size(), 2u);
  profile app_part = with_samples(p, std::move(groups[0].samples));
  ASSERT_EQ(app_part.samples.size(), 2u);
  EXPECT_EQ(app_part.locations.size(), 3u) << "fn_0, fn_2 and shared_main: only what they use";
  EXPECT_EQ(stack_names(app_part, app_part.samples[1]),
            (std::vector<std::string>{"fn_2", "shared_main"}));
  EXPECT_EQ(app_part.time_nanos, 1000);
}

}  // namespace
}  // namespace arec::exporting
