// event_names: the names salvage gives attrs without EVENT_DESC are perf 6.1's own (evsel__name
// with its modifiers), except offcpu-time, which perf calls unknown-software.
#include "convert/event_names.hpp"

#include <gtest/gtest.h>

#include <vector>

namespace arec::convert {
namespace {

perf_event_attr attr_of(std::uint32_t type, std::uint64_t config) {
  perf_event_attr attr{};
  attr.size = sizeof attr;
  attr.type = type;
  attr.config = config;
  attr.exclude_guest = 1;  // perf's default on a host
  return attr;
}

// perf evlist of an arec recording of -e cpu-clock:u -e task-clock:k killed before its
// EVENT_DESC showed "cpu-clock:uH" and "task-clock:k": perf's rule, followed here.
TEST(EventNames, AreThoseOfPerfForHardwareSoftwareAndRawEvents) {
  perf_event_attr clock = attr_of(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK);
  EXPECT_EQ(salvaged_event_name(clock), "cpu-clock");
  clock.exclude_kernel = clock.exclude_hv = 1;
  EXPECT_EQ(salvaged_event_name(clock), "cpu-clock:uH");
  clock.exclude_guest = 0;
  EXPECT_EQ(salvaged_event_name(clock), "cpu-clock:u");
  perf_event_attr task = attr_of(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK);
  task.exclude_user = task.exclude_hv = 1;
  task.exclude_guest = 0;
  EXPECT_EQ(salvaged_event_name(task), "task-clock:k");
  perf_event_attr cycles = attr_of(PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES);
  cycles.precise_ip = 2;
  EXPECT_EQ(salvaged_event_name(cycles), "cycles:ppH");
  EXPECT_EQ(salvaged_event_name(attr_of(PERF_TYPE_HARDWARE, 99)), "unknown-hardware");
  EXPECT_EQ(salvaged_event_name(attr_of(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_DUMMY)), "dummy");
  EXPECT_EQ(salvaged_event_name(attr_of(PERF_TYPE_RAW, 0x1c2)), "raw 0x1c2");
  EXPECT_EQ(salvaged_event_name(attr_of(PERF_TYPE_TRACEPOINT, 300)), "");
}

TEST(EventNames, KnowsTheOffCpuAttrButNotABpfOutputEvent) {
  perf_event_attr off_cpu = attr_of(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_BPF_OUTPUT);
  off_cpu.freq = 1;
  off_cpu.sample_freq = 1;
  off_cpu.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_CALLCHAIN;
  EXPECT_EQ(salvaged_event_name(off_cpu), "offcpu-time");
  off_cpu.sample_type |= PERF_SAMPLE_RAW;  // -e bpf-output: its programs' data
  EXPECT_EQ(salvaged_event_name(off_cpu), "unknown-software");
}

// EVENT_DESC names attrs by index: naming stops at the first attr perf names from elsewhere.
TEST(EventNames, NamesTheLeadingEventsUpToOneItCannotName) {
  std::vector<perf_data::event_entry> events(3);
  events[0].attr = attr_of(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK);
  events[1].attr = attr_of(PERF_TYPE_TRACEPOINT, 300);
  events[2].attr = attr_of(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_DUMMY);
  EXPECT_EQ(name_salvaged_events(events), 1u);
  EXPECT_EQ(events[0].name, "cpu-clock");
  EXPECT_EQ(events[1].name, "");
  EXPECT_EQ(events[2].name, "");
}

}  // namespace
}  // namespace arec::convert
