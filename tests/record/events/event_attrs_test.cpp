#include "record/events/event_attrs.hpp"

#include <gtest/gtest.h>
#include <time.h>

#include <stdexcept>

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

TEST(EventAttrs, StrictFrequencyRefusesOnlyWhatTheUserAskedFor) {
  sampling_config config;
  config.frequency = 200000;
  EXPECT_THROW(limit_frequency(config, true, 100000, true), std::runtime_error);
  sampling_config default_rate;  // 4000 Hz: lowered with a note even with --strict-freq
  EXPECT_NE(limit_frequency(default_rate, false, 1000, true), "");
  EXPECT_EQ(default_rate.frequency, 1000u);
}

TEST(EventAttrs, PerfRecordFlagsReachTheAttrs) {
  event_spec clock = parse_event_spec("cpu-clock:k");
  sampling_config config;
  EXPECT_EQ(sampling_attr(clock, config).inherit, 1u);
  config.attrs.inherit = false;
  config.attrs.privileges = privilege_scope::user_only;  // overrides the :k modifier
  config.attrs.clockid = CLOCK_MONOTONIC_RAW;
  config.attrs.no_buffering = true;
  config.wakeup_bytes = 4096;
  for (const perf_event_attr& attr : {sampling_attr(clock, config), tracking_attr(config)}) {
    EXPECT_EQ(attr.inherit, 0u);
    EXPECT_EQ(attr.use_clockid, 1u) << "every event on one clock";
    EXPECT_EQ(attr.clockid, CLOCK_MONOTONIC_RAW);
    EXPECT_EQ(attr.watermark, 0u) << "--no-buffering wins over a watermark";
    EXPECT_EQ(attr.wakeup_events, 1u);
  }
  perf_event_attr user = sampling_attr(clock, config);
  EXPECT_EQ(user.exclude_kernel, 1u);
  EXPECT_EQ(user.exclude_user, 0u);
  config.attrs.privileges = privilege_scope::kernel_only;
  perf_event_attr kernel = sampling_attr(parse_event_spec("cpu-clock:u"), config);
  EXPECT_EQ(kernel.exclude_kernel, 0u);
  EXPECT_EQ(kernel.exclude_user, 1u);
}

TEST(EventAttrs, StatAsksForPerThreadCounts) {
  sampling_config config;
  EXPECT_EQ(sampling_attr(parse_event_spec("cpu-clock"), config).read_format, 0u);
  config.attrs.per_thread_stat = true;
  perf_event_attr attr = sampling_attr(parse_event_spec("cpu-clock"), config);
  EXPECT_EQ(attr.inherit_stat, 1u);
  EXPECT_EQ(attr.read_format, PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING |
                                  PERF_FORMAT_ID | read_format_lost);
}

TEST(EventAttrs, BranchFiltersAddABranchStackToSamples) {
  sampling_config config;
  config.attrs.branch_sample_type = PERF_SAMPLE_BRANCH_ANY_CALL;
  perf_event_attr attr = sampling_attr(parse_event_spec("cycles"), config);
  EXPECT_NE(attr.sample_type & PERF_SAMPLE_BRANCH_STACK, 0u);
  EXPECT_EQ(attr.branch_sample_type, std::uint64_t{PERF_SAMPLE_BRANCH_ANY_CALL});
  EXPECT_EQ(tracking_attr(config).sample_type & PERF_SAMPLE_BRANCH_STACK, 0u);
}

// The id must sit at one place in every record of every attr: the fields the options add
// are on the tracking event too, and -d's ADDR (before ID) on all of them.
TEST(EventAttrs, SampleFieldsGoOnEveryAttrAndKeepTheIdInPlace) {
  sampling_config config;
  config.attrs.sample_fields = PERF_SAMPLE_ADDR | PERF_SAMPLE_DATA_SRC;
  config.attrs.intr_regs = 0x180;
  config.call_graph = call_graph_mode::fp;
  perf_event_attr tracking = tracking_attr(config);
  perf_event_attr sampling = sampling_attr(parse_event_spec("cpu-clock"), config);
  constexpr std::uint64_t up_to_cpu = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
                                      PERF_SAMPLE_ADDR | PERF_SAMPLE_ID | PERF_SAMPLE_CPU;
  EXPECT_EQ(tracking.sample_type & (up_to_cpu | PERF_SAMPLE_IDENTIFIER), up_to_cpu);
  EXPECT_EQ(sampling.sample_type & (up_to_cpu | PERF_SAMPLE_IDENTIFIER), up_to_cpu);
  EXPECT_NE(sampling.sample_type & PERF_SAMPLE_REGS_INTR, 0u);
  EXPECT_EQ(sampling.sample_regs_intr, 0x180u);
  EXPECT_EQ(tracking.mmap_data, 1u) << "-d resolves data addresses through data mappings";
}

TEST(EventAttrs, SampleIdentifierReplacesTheId) {
  sampling_config config;
  config.attrs.sample_identifier = true;
  for (const perf_event_attr& attr :
       {tracking_attr(config), sampling_attr(parse_event_spec("cpu-clock"), config)}) {
    EXPECT_NE(attr.sample_type & PERF_SAMPLE_IDENTIFIER, 0u);
    EXPECT_EQ(attr.sample_type & PERF_SAMPLE_ID, 0u);
  }
}

// As perf: a --user-regs subset gets IP and SP for the DWARF unwinder, not the whole set.
TEST(EventAttrs, DwarfCallGraphsAddOnlyIpAndSpToUserRegisters) {
  sampling_config config;
  config.call_graph = call_graph_mode::dwarf;
  EXPECT_EQ(sampling_attr(parse_event_spec("cpu-clock"), config).sample_regs_user, 0xff0fffu);
  config.attrs.user_regs = 0x1;  // AX
  EXPECT_EQ(sampling_attr(parse_event_spec("cpu-clock"), config).sample_regs_user, 0x181u);
  EXPECT_EQ(tracking_attr(config).sample_regs_user, 0x181u);
}

TEST(EventAttrs, SideBandFlagsGoOnTheTrackingEvent) {
  sampling_config config;
  config.attrs.switch_events = true;
  config.attrs.namespaces = true;
  perf_event_attr tracking = tracking_attr(config);
  EXPECT_EQ(tracking.context_switch, 1u);
  EXPECT_EQ(tracking.namespaces, 1u);
  perf_event_attr sampling = sampling_attr(parse_event_spec("cpu-clock"), config);
  EXPECT_EQ(sampling.context_switch, 0u);
  EXPECT_EQ(sampling.namespaces, 0u);
}

TEST(EventAttrs, NoSamplesClearsThePeriodAsPerfDoes) {
  sampling_config config;
  config.attrs.no_samples = true;
  perf_event_attr by_frequency = sampling_attr(parse_event_spec("cpu-clock"), config);
  EXPECT_EQ(by_frequency.freq, 1u);
  EXPECT_EQ(by_frequency.sample_freq, 0u);
  EXPECT_EQ(limit_frequency(config, true, 1), "") << "no frequency to lower";
  config.period = 1000;
  EXPECT_EQ(sampling_attr(parse_event_spec("cpu-clock"), config).sample_period, 0u);
  EXPECT_EQ(tracking_attr(config).sample_period, 1u) << "the side-band still flows";
}

TEST(EventAttrs, DelayedSamplingIsNotEnabledAtExec) {
  sampling_config config;
  config.workload = true;
  config.delayed = true;
  perf_event_attr sampling = sampling_attr(parse_event_spec("cpu-clock"), config);
  EXPECT_EQ(sampling.enable_on_exec, 0u);
  EXPECT_EQ(sampling.disabled, 1u) << "enabled by ioctl once the delay has passed";
  EXPECT_EQ(tracking_attr(config).enable_on_exec, 1u) << "what runs is tracked from the exec";
}

TEST(EventAttrs, EventTermsOverrideTheCommandLineForThatEventOnly) {
  sampling_config config;  // -F 4000 -g
  config.call_graph = call_graph_mode::fp;
  perf_event_attr period = sampling_attr(parse_event_spec("cpu-clock/period=100000/"), config);
  EXPECT_EQ(period.freq, 0u);
  EXPECT_EQ(period.sample_period, 100000u);
  EXPECT_NE(period.sample_type & PERF_SAMPLE_CALLCHAIN, 0u);
  perf_event_attr plain = sampling_attr(parse_event_spec("cpu-clock"), config);
  EXPECT_EQ(plain.freq, 1u);
  EXPECT_EQ(plain.sample_freq, 4000u);
  perf_event_attr no_graph = sampling_attr(parse_event_spec("cpu-clock/call-graph=no/"), config);
  EXPECT_EQ(no_graph.sample_type & PERF_SAMPLE_CALLCHAIN, 0u);
  // As perf: stack-size alone replaces -g with no call graph at all.
  perf_event_attr size_only = sampling_attr(parse_event_spec("cpu-clock/stack-size=4096/"), config);
  EXPECT_EQ(size_only.sample_type & PERF_SAMPLE_CALLCHAIN, 0u);
  perf_event_attr max_stack = sampling_attr(parse_event_spec("cpu-clock/max-stack=3/"), {});
  EXPECT_NE(max_stack.sample_type & PERF_SAMPLE_CALLCHAIN, 0u);
  EXPECT_EQ(max_stack.sample_max_stack, 3u);
  perf_event_attr dwarf =
      sampling_attr(parse_event_spec("cpu-clock/call-graph=dwarf,stack-size=4096/"), {});
  EXPECT_EQ(dwarf.sample_stack_user, 4096u);
  EXPECT_EQ(dwarf.exclude_callchain_user, 1u);
  // Per-event call graphs add only fields after CPU: the layout up to ID/CPU stays common.
  EXPECT_EQ(dwarf.sample_type & ~(PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_REGS_USER |
                                  PERF_SAMPLE_STACK_USER | PERF_SAMPLE_PERIOD),
            common_sample_type);
  EXPECT_EQ(sampling_attr(parse_event_spec("cpu-clock/no-inherit/"), {}).inherit, 0u);
  EXPECT_EQ(sampling_attr(parse_event_spec("cpu-clock/freq=99/"), {.period = 5}).sample_freq, 99u);
}

// perf 6.1's evsel__reset_callgraph clears -g dwarf's sample bits but keeps its other fields.
TEST(EventAttrs, EventCallGraphOverDwarfKeepsWhatPerfKeeps) {
  sampling_config config;
  config.call_graph = call_graph_mode::dwarf;
  perf_event_attr fp = sampling_attr(parse_event_spec("cpu-clock/max-stack=5/"), config);
  EXPECT_EQ(fp.sample_type & (PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER), 0u);
  EXPECT_NE(fp.sample_type & PERF_SAMPLE_CALLCHAIN, 0u);
  EXPECT_EQ(fp.exclude_callchain_user, 1u);
  EXPECT_EQ(fp.sample_stack_user, default_dwarf_stack_size);
  EXPECT_EQ(fp.sample_max_stack, 5u);
}

TEST(EventAttrs, GroupMembersFollowTheirLeader) {
  event_spec leader_spec = parse_event_spec("cpu-clock");
  leader_spec.group_size = 2;
  event_spec member_spec = parse_event_spec("task-clock");
  member_spec.group_member = true;
  sampling_config config;
  config.workload = true;
  perf_event_attr leader = sampling_attr(leader_spec, config);
  perf_event_attr member = sampling_attr(member_spec, config);
  make_group_member(member, leader);
  EXPECT_EQ(leader.disabled, 1u);
  EXPECT_EQ(leader.enable_on_exec, 1u);
  EXPECT_EQ(member.disabled, 0u);
  EXPECT_EQ(member.enable_on_exec, 0u);
  EXPECT_EQ(leader.read_format, group_read_format);
  EXPECT_EQ(member.read_format, group_read_format);
  EXPECT_EQ(member.sample_freq, 4000u) << "members sample on their own without :S";
}

TEST(EventAttrs, LeaderSamplingReadsTheGroupInEachSample) {
  event_spec leader_spec = parse_event_spec("cpu-clock:S");
  leader_spec.group_size = 2;
  event_spec member_spec = parse_event_spec("task-clock:S");
  member_spec.group_member = true;
  perf_event_attr leader = sampling_attr(leader_spec, {});
  perf_event_attr member = sampling_attr(member_spec, {});
  make_group_member(member, leader);
  EXPECT_NE(leader.sample_type & PERF_SAMPLE_READ, 0u);
  EXPECT_EQ(leader.read_format, group_read_format | PERF_FORMAT_GROUP);
  EXPECT_EQ(leader.inherit, 0u);
  EXPECT_EQ(member.inherit, 0u);
  EXPECT_EQ(member.freq, 0u);
  EXPECT_EQ(member.sample_period, 0u);
  EXPECT_EQ(member.sample_type, leader.sample_type);
}

}  // namespace
}  // namespace arec::record
