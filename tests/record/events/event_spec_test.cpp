#include "record/events/event_spec.hpp"

#include <gtest/gtest.h>
#include <linux/perf_event.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "host/tracefs.hpp"
#include "support/temp_dir.hpp"

using arec::base::usage_error;
using arec::record::add_filter;
using arec::record::event_spec;
using arec::record::find_tracepoints;
using arec::record::parse_event_spec;
using arec::record::parse_event_specs;
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

// A tree laid out like tracefs' events directory: each "system:event" gets an id file; the
// files tracefs keeps beside the systems and events (enable, filter) are there too.
class fake_tracefs {
 public:
  explicit fake_tracefs(const std::vector<std::pair<std::string, std::uint64_t>>& tracepoints) {
    make("events");
    std::ofstream(dir_.file("events/enable")) << "0\n";
    std::ofstream(dir_.file("events/header_page")) << "\n";
    for (const auto& [name, id] : tracepoints) {
      std::string system = name.substr(0, name.find(':'));
      std::string event = name.substr(name.find(':') + 1);
      make("events/" + system);
      std::ofstream(dir_.file("events/" + system + "/filter")) << "none\n";
      make("events/" + system + "/" + event);
      std::ofstream(dir_.file("events/" + system + "/" + event + "/id")) << id << "\n";
    }
  }
  const std::string& root() const { return dir_.path(); }

 private:
  void make(const std::string& relative) { ::mkdir(dir_.file(relative).c_str(), 0755); }
  arec::test::temp_dir dir_;
};

std::vector<std::string> names_of(const std::vector<event_spec>& events) {
  std::vector<std::string> names;
  for (const event_spec& event : events) names.push_back(event.name);
  return names;
}

// The names the pattern should give, in the order the directories are listed (tracefs' order,
// the one perf's readdir sees), from the expected set.
std::vector<std::string> in_listed_order(const fake_tracefs& tree,
                                         const std::vector<std::string>& expected) {
  std::vector<std::string> ordered;
  for (const std::string& system : arec::host::tracefs::list_directories(tree.root(), "events"))
    for (const std::string& event :
         arec::host::tracefs::list_directories(tree.root(), "events/" + system))
      if (std::find(expected.begin(), expected.end(), system + ":" + event) != expected.end())
        ordered.push_back(system + ":" + event);
  return ordered;
}

std::string find_message(const fake_tracefs& tree, std::string_view system,
                         std::string_view event) {
  try {
    find_tracepoints(tree.root(), system, event);
  } catch (const usage_error& error) {
    return error.what();
  }
  ADD_FAILURE() << "found " << system << ":" << event;
  return {};
}

const fake_tracefs& sample_tree() {
  static const fake_tracefs tree({{"sched:sched_switch", 10},
                                  {"sched:sched_wakeup", 11},
                                  {"sched:sched_wakeup_new", 12},
                                  {"sched:sched_waking", 13},
                                  {"sched:sched_process_exit", 14},
                                  {"irq:irq_handler_entry", 20},
                                  {"syscalls:sys_enter_read", 30},
                                  {"sock:inet_sock_set_state", 40}});
  return tree;
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
  EXPECT_EQ(
      usage_message("cycles:x"),
      "unknown modifier 'x' in event 'cycles:x' (supported: u, k, h, G, H, I, D, e, p, P, S)");
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
  std::uint64_t id =
      arec::host::tracefs::read_tracepoint_id(arec::host::tracefs::root(), "sched", "sched_switch");
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

TEST(EventSpecGlob, EventPatternExpandsToEveryMatchingTracepointInTracefsOrder) {
  const fake_tracefs& tree = sample_tree();
  std::vector<event_spec> events = find_tracepoints(tree.root(), "sched", "sched_wak*");
  EXPECT_EQ(names_of(events), in_listed_order(tree, {"sched:sched_wakeup", "sched:sched_wakeup_new",
                                                     "sched:sched_waking"}));
  for (const event_spec& event : events) {
    EXPECT_EQ(event.type, PERF_TYPE_TRACEPOINT);
    ASSERT_TRUE(event.tracepoint);
    EXPECT_EQ(event.name, event.tracepoint->first + ":" + event.tracepoint->second);
    EXPECT_EQ(event.config, event.tracepoint->second == "sched_wakeup"       ? 11u
                            : event.tracepoint->second == "sched_wakeup_new" ? 12u
                                                                             : 13u);
  }
  EXPECT_EQ(names_of(find_tracepoints(tree.root(), "sched", "sched_wakeu?")),
            (std::vector<std::string>{"sched:sched_wakeup"}));
  EXPECT_EQ(find_tracepoints(tree.root(), "sched", "*").size(), 5u)  // not enable or filter
      << "only the event directories";
}

TEST(EventSpecGlob, SystemPatternExpandsOverSystems) {
  const fake_tracefs& tree = sample_tree();
  EXPECT_EQ(
      names_of(find_tracepoints(tree.root(), "s*", "*")),
      in_listed_order(tree, {"sched:sched_switch", "sched:sched_wakeup", "sched:sched_wakeup_new",
                             "sched:sched_waking", "sched:sched_process_exit",
                             "syscalls:sys_enter_read", "sock:inet_sock_set_state"}));
  EXPECT_EQ(names_of(find_tracepoints(tree.root(), "sche?", "sched_switch")),
            (std::vector<std::string>{"sched:sched_switch"}));
  EXPECT_EQ(names_of(find_tracepoints(tree.root(), "[i]*", "*_entry")),
            (std::vector<std::string>{"irq:irq_handler_entry"}));
}

// perf 6.1 refuses a pattern that matches nothing, and (its add_tracepoint_multi_sys) a system
// pattern whose every system does not have the event: '*:sched_switch' fails at the first
// system without it.
TEST(EventSpecGlob, PatternsThatMatchNothingAreRefusedAsPerfDoes) {
  const fake_tracefs& tree = sample_tree();
  EXPECT_EQ(find_message(tree, "sched", "nomatch*"),
            "tracepoint 'sched:nomatch*' matches no event of system 'sched'");
  EXPECT_EQ(find_message(tree, "nosys", "x*"),
            "tracepoint 'nosys:x*' matches no event of system 'nosys'");
  EXPECT_EQ(find_message(tree, "nosys*", "x"),
            "tracepoint 'nosys*:x' matches no tracepoint system");
  std::string message = find_message(tree, "*", "sched_switch");
  EXPECT_NE(message.find(":sched_switch' (from '*:sched_switch') does not exist"),
            std::string::npos)
      << message;
}

TEST(EventSpecGlob, ParseEventSpecsExpandsOnlyPatterns) {
  std::vector<event_spec> plain = parse_event_specs("cpu-clock:u");
  ASSERT_EQ(plain.size(), 1u);
  EXPECT_EQ(plain[0], parse_event_spec("cpu-clock:u"));
  std::vector<event_spec> wakeups = parse_event_specs("sched:sched_wakeup*");
  std::vector<std::string> names = names_of(wakeups);
  std::sort(names.begin(), names.end());
  EXPECT_EQ(names, (std::vector<std::string>{"sched:sched_wakeup", "sched:sched_wakeup_new"}));
  EXPECT_EQ(usage_message("sched:sched_[s]witch"), "unknown event 'sched:sched_[s]witch'")
      << "as perf, [...] alone does not make a pattern";
  try {
    parse_event_specs("sched:../*");
    ADD_FAILURE() << "accepted a path";
  } catch (const usage_error& error) {
    EXPECT_EQ(std::string(error.what()), "unknown event 'sched:../*'");
  }
}

TEST(EventSpecFilter, FiltersJoinAsPerfJoinsThem) {
  event_spec event = parse_event_spec("cpu-clock");
  add_filter(event, "prev_pid == 1");
  EXPECT_EQ(event.filter, "prev_pid == 1");
  add_filter(event, "common_pid != 7");
  EXPECT_EQ(event.filter, "(prev_pid == 1) && (common_pid != 7)");
}
