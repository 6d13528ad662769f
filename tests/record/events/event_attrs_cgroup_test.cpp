// --all-cgroups in the attrs (its own file: other options' attr tests change beside it).
#include <gtest/gtest.h>

#include "record/events/event_attrs.hpp"

namespace arec::record {
namespace {

TEST(EventAttrs, AllCgroupsSamplesTheCgroupOnEveryEventAndTracksNewOnes) {
  sampling_config config;
  config.attrs.all_cgroups = true;
  perf_event_attr sampling = sampling_attr(parse_event_spec("cpu-clock"), config);
  perf_event_attr tracking = tracking_attr(config);
  EXPECT_TRUE(sampling.sample_type & PERF_SAMPLE_CGROUP);
  EXPECT_TRUE(tracking.sample_type & PERF_SAMPLE_CGROUP);
  EXPECT_EQ(sampling.cgroup, 0u);
  EXPECT_EQ(tracking.cgroup, 1u);
  // CGROUP comes after CPU in a sample: the fields every event shares keep their places.
  EXPECT_EQ(sampling.sample_type & common_sample_type, common_sample_type);
  EXPECT_GT(std::uint64_t{PERF_SAMPLE_CGROUP}, std::uint64_t{PERF_SAMPLE_CPU});

  sampling_config plain;
  EXPECT_FALSE(sampling_attr(parse_event_spec("cpu-clock"), plain).sample_type &
               PERF_SAMPLE_CGROUP);
  EXPECT_EQ(tracking_attr(plain).cgroup, 0u);
}

}  // namespace
}  // namespace arec::record
