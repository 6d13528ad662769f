#include "record/events/event_attrs.hpp"

#include <gtest/gtest.h>

namespace arec::record {
namespace {

TEST(EventAttrs, ModifiersReachTheAttr) {
  perf_event_attr user = sampling_attr(parse_event_spec("cpu-clock:u"), {});
  EXPECT_EQ(user.exclude_kernel, 1u);
  EXPECT_EQ(user.exclude_hv, 1u);
  EXPECT_EQ(user.exclude_guest, 1u);
  perf_event_attr kernel = sampling_attr(parse_event_spec("cpu-clock:k"), {});
  EXPECT_EQ(kernel.exclude_user, 1u);
  EXPECT_EQ(kernel.exclude_hv, 1u);
  EXPECT_EQ(kernel.exclude_guest, 0u) << "as perf: only u and p exclude guests once modified";
  EXPECT_EQ(sampling_attr(parse_event_spec("cpu-clock"), {}).exclude_guest, 1u);
  EXPECT_EQ(sampling_attr(parse_event_spec("cycles:pp"), {}).precise_ip, 2u);
  EXPECT_EQ(sampling_attr(parse_event_spec("cycles:P"), {}).precise_ip, max_precise_ip);
  EXPECT_EQ(sampling_attr(parse_event_spec("cycles"), {}).precise_ip, 0u);
}

TEST(EventAttrs, FrequencyAboveTheKernelLimitIsLoweredWithAWarning) {
  sampling_config config;
  config.frequency = 200000;
  std::string warning = limit_frequency(config, true, 100000);
  EXPECT_EQ(config.frequency, 100000u);
  EXPECT_EQ(warning,
            "arec: warning: maximum frequency rate (100000 Hz) exceeded, throttling from 200000 "
            "Hz to 100000 Hz.\narec:   The limit can be raised via "
            "/proc/sys/kernel/perf_event_max_sample_rate; the kernel lowers it when sampling "
            "interrupts take too long.");
}

TEST(EventAttrs, DefaultFrequencyAboveTheKernelLimitIsLoweredWithANote) {
  sampling_config config;  // 4000 Hz
  EXPECT_EQ(limit_frequency(config, false, 1000),
            "arec: lowering the default frequency rate from 4000 Hz to 1000 Hz "
            "(kernel.perf_event_max_sample_rate)");
  EXPECT_EQ(config.frequency, 1000u);
}

TEST(EventAttrs, FrequencyWithinTheLimitOrAPeriodIsLeftAlone) {
  sampling_config config;
  config.frequency = 100000;
  EXPECT_EQ(limit_frequency(config, true, 100000), "");
  EXPECT_EQ(config.frequency, 100000u);
  sampling_config period;
  period.period = 1;
  period.frequency = 999999;  // unused when a period is set
  EXPECT_EQ(limit_frequency(period, true, 1000), "");
  EXPECT_EQ(period.frequency, 999999u);
}

}  // namespace
}  // namespace arec::record
