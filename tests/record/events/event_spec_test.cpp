#include "record/events/event_spec.hpp"

#include <gtest/gtest.h>
#include <linux/perf_event.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

#include "io/tracefs.hpp"

using arec::io::usage_error;
using arec::record::event_spec;
using arec::record::parse_event_spec;
using arec::record::software_fallback;

namespace {

std::string usage_message(std::string_view name) {
  try {
    parse_event_spec(name);
  } catch (const usage_error& error) {
    return error.what();
  }
  ADD_FAILURE() << "accepted '" << name << "'";
  return {};
}

}  // namespace

TEST(EventSpec, HardwareEventsAndAliases) {
  struct {
    const char* name;
    std::uint64_t config;
  } cases[] = {
      {"cycles", PERF_COUNT_HW_CPU_CYCLES},
      {"cpu-cycles", PERF_COUNT_HW_CPU_CYCLES},
      {"instructions", PERF_COUNT_HW_INSTRUCTIONS},
      {"cache-references", PERF_COUNT_HW_CACHE_REFERENCES},
      {"cache-misses", PERF_COUNT_HW_CACHE_MISSES},
      {"branches", PERF_COUNT_HW_BRANCH_INSTRUCTIONS},
      {"branch-instructions", PERF_COUNT_HW_BRANCH_INSTRUCTIONS},
      {"branch-misses", PERF_COUNT_HW_BRANCH_MISSES},
      {"bus-cycles", PERF_COUNT_HW_BUS_CYCLES},
      {"ref-cycles", PERF_COUNT_HW_REF_CPU_CYCLES},
      {"stalled-cycles-frontend", PERF_COUNT_HW_STALLED_CYCLES_FRONTEND},
      {"stalled-cycles-backend", PERF_COUNT_HW_STALLED_CYCLES_BACKEND},
  };
  for (const auto& c : cases) {
    event_spec event = parse_event_spec(c.name);
    EXPECT_EQ(event.name, c.name);
    EXPECT_EQ(event.type, PERF_TYPE_HARDWARE) << c.name;
    EXPECT_EQ(event.config, c.config) << c.name;
    EXPECT_FALSE(event.exclude_user || event.exclude_kernel || event.exclude_hv) << c.name;
    EXPECT_FALSE(event.tracepoint) << c.name;
  }
}

TEST(EventSpec, SoftwareEventsAndAliases) {
  struct {
    const char* name;
    std::uint64_t config;
  } cases[] = {
      {"cpu-clock", PERF_COUNT_SW_CPU_CLOCK},
      {"task-clock", PERF_COUNT_SW_TASK_CLOCK},
      {"page-faults", PERF_COUNT_SW_PAGE_FAULTS},
      {"faults", PERF_COUNT_SW_PAGE_FAULTS},
      {"context-switches", PERF_COUNT_SW_CONTEXT_SWITCHES},
      {"cs", PERF_COUNT_SW_CONTEXT_SWITCHES},
      {"cpu-migrations", PERF_COUNT_SW_CPU_MIGRATIONS},
      {"migrations", PERF_COUNT_SW_CPU_MIGRATIONS},
      {"minor-faults", PERF_COUNT_SW_PAGE_FAULTS_MIN},
      {"major-faults", PERF_COUNT_SW_PAGE_FAULTS_MAJ},
      {"alignment-faults", PERF_COUNT_SW_ALIGNMENT_FAULTS},
      {"emulation-faults", PERF_COUNT_SW_EMULATION_FAULTS},
      {"dummy", PERF_COUNT_SW_DUMMY},
      {"bpf-output", PERF_COUNT_SW_BPF_OUTPUT},
  };
  for (const auto& c : cases) {
    event_spec event = parse_event_spec(c.name);
    EXPECT_EQ(event.type, PERF_TYPE_SOFTWARE) << c.name;
    EXPECT_EQ(event.config, c.config) << c.name;
  }
}

TEST(EventSpec, RawEventIsHex) {
  event_spec event = parse_event_spec("r1a8");
  EXPECT_EQ(event.type, PERF_TYPE_RAW);
  EXPECT_EQ(event.config, 0x1a8u);
}

TEST(EventSpec, UserModifierExcludesKernelAndHypervisor) {
  event_spec event = parse_event_spec("cycles:u");
  EXPECT_EQ(event.name, "cycles:u");
  EXPECT_EQ(event.type, PERF_TYPE_HARDWARE);
  EXPECT_EQ(event.config, PERF_COUNT_HW_CPU_CYCLES);
  EXPECT_FALSE(event.exclude_user);
  EXPECT_TRUE(event.exclude_kernel);
  EXPECT_TRUE(event.exclude_hv);
}

TEST(EventSpec, KernelModifierExcludesUser) {
  event_spec event = parse_event_spec("cpu-clock:k");
  EXPECT_TRUE(event.exclude_user);
  EXPECT_FALSE(event.exclude_kernel);
}

TEST(EventSpec, UserAndKernelModifiersTogetherExcludeOnlyHypervisor) {
  event_spec event = parse_event_spec("instructions:uk");
  EXPECT_FALSE(event.exclude_user);
  EXPECT_FALSE(event.exclude_kernel);
  EXPECT_TRUE(event.exclude_hv);
}

TEST(EventSpec, MaxPreciseModifierAsksForTheHighestPrecision) {
  event_spec event = parse_event_spec("cycles:uP");
  EXPECT_TRUE(event.precise_max);
  EXPECT_EQ(event.precise_ip, 0) << "the attr asks for 3; event_set lowers it on refusal";
  EXPECT_TRUE(event.exclude_kernel);
  EXPECT_FALSE(parse_event_spec("cycles:ppp").precise_max);
}

TEST(EventSpec, PreciseModifiersCountUpToThree) {
  EXPECT_EQ(parse_event_spec("cycles:p").precise_ip, 1);
  EXPECT_EQ(parse_event_spec("cycles:ppp").precise_ip, 3);
  event_spec event = parse_event_spec("cycles:upp");
  EXPECT_EQ(event.precise_ip, 2);
  EXPECT_TRUE(event.exclude_kernel);
  EXPECT_EQ(parse_event_spec("r1a8:u").type, PERF_TYPE_RAW);
  EXPECT_NE(usage_message("cycles:pppp").find("at most three 'p' modifiers"), std::string::npos);
}

// perf's rule: naming G or H first excludes both, then each letter re-includes its own; from
// then on 'u' and 'p' leave the guest setting alone.
TEST(EventSpec, GuestAndHostModifiersAsPerfSetsThem) {
  event_spec guest = parse_event_spec("cpu-clock:G");
  EXPECT_FALSE(guest.exclude_guest);
  EXPECT_TRUE(guest.exclude_host);
  event_spec host = parse_event_spec("cpu-clock:H");
  EXPECT_TRUE(host.exclude_guest);
  EXPECT_FALSE(host.exclude_host);
  event_spec both = parse_event_spec("cpu-clock:GH");
  EXPECT_FALSE(both.exclude_guest);
  EXPECT_FALSE(both.exclude_host);
  EXPECT_FALSE(parse_event_spec("cpu-clock:Gu").exclude_guest) << "u after G keeps the guest";
  EXPECT_FALSE(parse_event_spec("cpu-clock:uG").exclude_guest) << "G re-includes the guest";
  EXPECT_FALSE(parse_event_spec("cpu-clock:u").exclude_host);
}

TEST(EventSpec, IdlePinnedAndExclusiveModifiers) {
  event_spec event = parse_event_spec("cpu-clock:IDe");
  EXPECT_TRUE(event.exclude_idle);
  EXPECT_TRUE(event.pinned);
  EXPECT_TRUE(event.exclusive);
  EXPECT_FALSE(parse_event_spec("cpu-clock").pinned);
}

TEST(EventSpec, UnknownModifierOfKnownEventIsNamed) {
  EXPECT_EQ(usage_message("cycles:x"),
            "unknown modifier 'x' in event 'cycles:x' (supported: u, k, h, G, H, I, D, e, p, P)");
  EXPECT_EQ(usage_message("cycles:"), "empty modifier in event 'cycles:'");
}

TEST(EventSpec, UnknownEventIsNamed) {
  EXPECT_EQ(usage_message("foo"), "unknown event 'foo'");
  EXPECT_EQ(usage_message("Cycles"), "unknown event 'Cycles'");
  EXPECT_EQ(usage_message("rxyz"), "unknown event 'rxyz'");
  EXPECT_EQ(usage_message("sched:../../x"), "unknown event 'sched:../../x'");
  EXPECT_EQ(usage_message("a:b:c"), "unknown event 'a:b:c'");
  EXPECT_EQ(usage_message(""), "empty event name");
}

TEST(EventSpec, TracepointIdComesFromTracefs) {
  std::uint64_t id = arec::io::tracefs::read_tracepoint_id(arec::io::tracefs::root(), "sched",
                                                           "sched_switch");
  event_spec event = parse_event_spec("sched:sched_switch");
  EXPECT_EQ(event.name, "sched:sched_switch");
  EXPECT_EQ(event.type, PERF_TYPE_TRACEPOINT);
  EXPECT_EQ(event.config, id);
  ASSERT_TRUE(event.tracepoint);
  EXPECT_EQ(event.tracepoint->first, "sched");
  EXPECT_EQ(event.tracepoint->second, "sched_switch");
  EXPECT_GT(event.config, 0u);
}

TEST(EventSpec, MissingTracepointIsNamed) {
  EXPECT_EQ(usage_message("sched:nope"), "tracepoint 'sched:nope' does not exist");
  EXPECT_EQ(usage_message("nosuchsystem:nope"), "tracepoint 'nosuchsystem:nope' does not exist");
}

TEST(EventSpec, CyclesFallBackToCpuClockKeepingModifiers) {
  std::optional<event_spec> fallback = software_fallback(parse_event_spec("cycles"));
  ASSERT_TRUE(fallback);
  EXPECT_EQ(fallback->name, "cpu-clock");
  EXPECT_EQ(fallback->type, PERF_TYPE_SOFTWARE);
  EXPECT_EQ(fallback->config, PERF_COUNT_SW_CPU_CLOCK);

  fallback = software_fallback(parse_event_spec("cpu-cycles:u"));
  ASSERT_TRUE(fallback);
  EXPECT_EQ(fallback->name, "cpu-clock:u");
  EXPECT_TRUE(fallback->exclude_kernel);
  EXPECT_FALSE(fallback->exclude_user);
}

TEST(EventSpec, OtherEventsHaveNoFallback) {
  EXPECT_FALSE(software_fallback(parse_event_spec("instructions")));
  EXPECT_FALSE(software_fallback(parse_event_spec("cpu-clock")));
  EXPECT_FALSE(software_fallback(parse_event_spec("r1a8")));
}
