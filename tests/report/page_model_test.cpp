// page_model: one merged call tree in depth-first order, rows per (node, thread), and the
// shares go tool pprof -top gives.
#include "report/page_model.hpp"

#include <gtest/gtest.h>

#include "report/function_shares.hpp"
#include "report_fixture.hpp"

namespace arec::report {
namespace {

using fixture::sample_profile;

std::vector<std::string> names_in_order(const page_model& model) {
  std::vector<std::string> names;
  for (std::uint32_t name : model.node_name) names.push_back(model.strings[name]);
  return names;
}

TEST(PageModel, MergesStacksRootFirstWithChildrenByName) {
  sample_profile built;
  built.add({"main", "b", "leaf"}, 30, 1);
  built.add({"main", "a"}, 10, 1);
  built.add({"main", "b", "leaf"}, 5, 2);
  page_model model = build_page_model(built.result);
  EXPECT_EQ(names_in_order(model), (std::vector<std::string>{"all", "main", "a", "b", "leaf"}));
  EXPECT_EQ(model.node_depth, (std::vector<std::uint32_t>{0, 1, 2, 2, 3}));
  EXPECT_EQ(model.total, 45);
  EXPECT_EQ(model.weight_type, "cpu-clock");
  EXPECT_EQ(model.weight_unit, "nanoseconds");
  ASSERT_EQ(model.threads.size(), 2u);
  EXPECT_EQ(model.strings[model.threads[0].name], "worker");
  EXPECT_EQ(model.threads[1].tid, 102);
  // Rows: a (thread 0), leaf (thread 0), leaf (thread 1).
  ASSERT_EQ(model.rows.size(), 3u);
  EXPECT_EQ(model.rows[0].node, 2u);
  EXPECT_EQ(model.rows[0].weight, 10);
  EXPECT_EQ(model.rows[1].node, 4u);
  EXPECT_EQ(model.rows[1].weight, 30);
  EXPECT_EQ(model.rows[2].thread, 1u);
  EXPECT_EQ(model.node_totals(), (std::vector<std::int64_t>{45, 45, 10, 35, 35}));
}

TEST(PageModel, EachEventHasItsRowsAndTheDefaultOneIsWhatTheSummaryWeighs) {
  sample_profile built;
  built.add({"main", "work"}, 10, 1);
  built.add({"main", "sleep"}, 0, 1);
  built.result.sample_types.push_back({built.intern("offcpu-time_samples"), built.intern("count")});
  built.result.sample_types.push_back({built.intern("offcpu-time"), built.intern("nanoseconds")});
  built.result.samples[0].values = {1, 10, 0, 0};
  built.result.samples[1].values = {0, 0, 1, 90};
  page_model model = build_page_model(built.result);
  ASSERT_EQ(model.events.size(), 2u);
  EXPECT_EQ(model.events[1].name, "offcpu-time");
  EXPECT_EQ(model.default_event, 0u);
  EXPECT_EQ(model.total, 10);
  ASSERT_EQ(model.rows.size(), 2u);
  EXPECT_EQ(model.strings[model.node_name[model.rows[0].node]], "sleep");
  EXPECT_EQ(model.rows[0].event, 1u);
  EXPECT_EQ(model.rows[0].weight, 90);
  std::vector<function_share> shares = function_shares(model);
  for (const function_share& share : shares) EXPECT_NE(model.strings[share.name], "sleep");
}

TEST(PageModel, ABaseJoinsTheTreeAsEventsOfItsOwn) {
  sample_profile now;
  now.add({"main", "new"}, 40, 1);
  sample_profile before;
  before.add({"main", "old"}, 25, 1);
  page_model model = build_page_model(now.result, &before.result);
  ASSERT_EQ(model.events.size(), 2u);
  EXPECT_FALSE(model.events[0].base);
  EXPECT_TRUE(model.events[1].base);
  EXPECT_EQ(model.events[1].name, "cpu-clock");
  EXPECT_EQ(model.total, 40);  // the profile's alone
  EXPECT_EQ(names_in_order(model), (std::vector<std::string>{"all", "main", "new", "old"}));
  ASSERT_EQ(model.rows.size(), 2u);
  EXPECT_EQ(model.rows[1].event, 1u);
  EXPECT_EQ(model.rows[1].weight, 25);
}

TEST(PageModel, TimeBucketLabelsGiveRowsTheirBucket) {
  sample_profile built;
  built.add({"main", "f"}, 10, 1);
  built.add({"main", "f"}, 20, 1);
  std::int64_t key = built.intern("time_bucket");
  built.result.samples[0].labels.push_back({key, 0, 0});
  built.result.samples[1].labels.push_back({key, 0, 4});
  page_model model = build_page_model(built.result);
  EXPECT_EQ(model.buckets, 5u);
  ASSERT_EQ(model.rows.size(), 2u);  // one stack and thread, two times
  EXPECT_EQ(model.rows[0].bucket, 0u);
  EXPECT_EQ(model.rows[1].bucket, 4u);
  EXPECT_EQ(model.rows[1].weight, 20);
  EXPECT_EQ(build_page_model(sample_profile{}.result).buckets, 0u);
}

TEST(PageModel, CoarserBucketsSumNeighboursUntilTheRowsFit) {
  sample_profile built;
  std::int64_t key = built.intern("time_bucket");
  for (std::int64_t bucket = 0; bucket < 8; ++bucket) {
    built.add({"main", "f"}, 1 + bucket, 1);
    built.result.samples.back().labels.push_back({key, 0, bucket});
  }
  page_model model = build_page_model(built.result);
  model.bucket_ns = 1000;
  ASSERT_EQ(model.rows.size(), 8u);
  coarsen_buckets(model, 3);
  EXPECT_EQ(model.buckets, 2u);  // 8 -> 4 -> 2
  EXPECT_EQ(model.bucket_ns, 4000u);
  ASSERT_EQ(model.rows.size(), 2u);
  EXPECT_EQ(model.rows[0].weight, 1 + 2 + 3 + 4);
  EXPECT_EQ(model.rows[1].weight, 5 + 6 + 7 + 8);
  coarsen_buckets(model, 0);  // never below one bucket
  EXPECT_EQ(model.buckets, 1u);
  EXPECT_EQ(model.rows.size(), 1u);
}

TEST(PageModel, AThreadInAContainerNamesIt) {
  sample_profile built;
  built.add({"main"}, 1, 1);
  built.add({"main"}, 1, 2);
  built.result.samples[1].labels.push_back(
      {built.intern("container_id"), built.intern("4f1c0ffee"), 0});
  page_model model = build_page_model(built.result);
  ASSERT_EQ(model.threads.size(), 2u);
  EXPECT_EQ(model.threads[0].container, 0u);
  EXPECT_EQ(model.strings[model.threads[1].container], "4f1c0ffee");
}

TEST(PageModel, KernelFramesAreMarkedAndUnnamedFramesAreUnknown) {
  sample_profile built;
  built.add({"main", "[kernel]sys_read", "?"}, 7, 1);
  page_model model = build_page_model(built.result);
  EXPECT_EQ(names_in_order(model),
            (std::vector<std::string>{"all", "main", "sys_read", "[unknown]"}));
  EXPECT_EQ(model.node_kind, (std::vector<std::uint8_t>{0, 0, kind_kernel, 0}));
}

TEST(PageModel, AnEmptyProfileIsJustTheRoot) {
  page_model model = build_page_model(exporting::profile{});
  EXPECT_EQ(model.node_name.size(), 1u);
  EXPECT_EQ(model.total, 0);
  EXPECT_TRUE(model.rows.empty());
}

TEST(FunctionShares, SelfIsTheLeafAndTotalCountsARecursionOnce) {
  sample_profile built;
  built.add({"main", "f", "g", "f"}, 6, 1);
  built.add({"main", "g"}, 4, 1);
  page_model model = build_page_model(built.result);
  std::vector<function_share> shares = function_shares(model);
  auto find = [&](std::string_view name) {
    for (const function_share& share : shares)
      if (model.strings[share.name] == name) return share;
    ADD_FAILURE() << name;
    return function_share{};
  };
  EXPECT_EQ(find("f").self, 6);
  EXPECT_EQ(find("f").total, 6);  // not 12: the inner f is inside the outer one
  EXPECT_EQ(find("g").self, 4);
  EXPECT_EQ(find("g").total, 10);
  EXPECT_EQ(find("main").total, 10);
  EXPECT_EQ(model.strings[shares.front().name], "f");  // by self first
}

}  // namespace
}  // namespace arec::report
