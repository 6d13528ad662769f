#include "record/events/event_list.hpp"

#include <gtest/gtest.h>
#include <linux/perf_event.h>

#include <string>
#include <vector>

#include "base/usage_error.hpp"

namespace arec::record {
namespace {

std::vector<std::string> names(const std::vector<event_spec>& events) {
  std::vector<std::string> out;
  for (const event_spec& event : events) out.push_back(event.name);
  return out;
}

std::string list_error(std::string_view text) {
  try {
    parse_event_list(text);
  } catch (const base::usage_error& error) {
    return error.what();
  }
  ADD_FAILURE() << "accepted '" << text << "'";
  return {};
}

TEST(EventList, CommasSeparateEvents) {
  std::vector<event_spec> events = parse_event_list("cpu-clock,task-clock:u");
  EXPECT_EQ(names(events), (std::vector<std::string>{"cpu-clock", "task-clock:u"}));
  for (const event_spec& event : events) {
    EXPECT_EQ(event.group_size, 0u);
    EXPECT_FALSE(event.group_member);
  }
}

TEST(EventList, BracesMakeAGroupLedByItsFirstEvent) {
  std::vector<event_spec> events = parse_event_list("{cpu-clock,task-clock,page-faults}");
  ASSERT_EQ(events.size(), 3u);
  EXPECT_EQ(events[0].group_size, 3u);
  EXPECT_FALSE(events[0].group_member);
  EXPECT_TRUE(events[1].group_member);
  EXPECT_TRUE(events[2].group_member);
  EXPECT_EQ(events[0].group_name, "");
}

TEST(EventList, GroupsAndLoneEventsMix) {
  std::vector<event_spec> events =
      parse_event_list("{cpu-clock,task-clock},page-faults,{cs,faults}");
  EXPECT_EQ(names(events),
            (std::vector<std::string>{"cpu-clock", "task-clock", "page-faults", "cs", "faults"}));
  EXPECT_EQ(events[0].group_size, 2u);
  EXPECT_TRUE(events[1].group_member);
  EXPECT_EQ(events[2].group_size, 0u);
  EXPECT_FALSE(events[2].group_member);
  EXPECT_EQ(events[3].group_size, 2u);
  EXPECT_TRUE(events[4].group_member);
}

TEST(EventList, AGroupOfOneIsNoGroupAsInPerf) {
  std::vector<event_spec> events = parse_event_list("{cpu-clock}");
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].group_size, 0u);
  EXPECT_FALSE(events[0].group_member);
}

TEST(EventList, NamedGroupKeepsItsName) {
  std::vector<event_spec> events = parse_event_list("foo{cpu-clock,task-clock}");
  EXPECT_EQ(events[0].group_name, "foo");
  EXPECT_EQ(events[0].group_size, 2u);
}

// perf's group modifiers add to each member's own: {cpu-clock:k,task-clock}:u leaves
// cpu-clock sampling user and kernel (only hv excluded) and task-clock user only.
TEST(EventList, GroupModifiersAddToEachMembersOwn) {
  std::vector<event_spec> events = parse_event_list("{cpu-clock:k,task-clock}:u");
  ASSERT_EQ(events.size(), 2u);
  EXPECT_FALSE(events[0].exclude_user);
  EXPECT_FALSE(events[0].exclude_kernel);
  EXPECT_TRUE(events[0].exclude_hv);
  EXPECT_TRUE(events[0].exclude_guest);
  EXPECT_FALSE(events[1].exclude_user);
  EXPECT_TRUE(events[1].exclude_kernel);
  EXPECT_TRUE(events[1].exclude_hv);
}

// Checked against perf record 6.1: an unmodified member keeps perf's default exclude_guest
// under a group :k, a member with its own modifiers keeps what they left.
TEST(EventList, GroupModifiersStartFromTheMembersGuestSetting) {
  std::vector<event_spec> events = parse_event_list("{cpu-clock:I,task-clock}:k");
  EXPECT_FALSE(events[0].exclude_guest);
  EXPECT_TRUE(events[0].exclude_idle);
  EXPECT_TRUE(events[1].exclude_guest);
  std::vector<event_spec> guest = parse_event_list("{cpu-clock:G,task-clock}:u");
  EXPECT_FALSE(guest[0].exclude_guest);
  EXPECT_TRUE(guest[0].exclude_host);
  EXPECT_TRUE(guest[1].exclude_guest);
  EXPECT_FALSE(guest[1].exclude_host);
}

TEST(EventList, LeaderSamplingModifierReachesEveryMember) {
  std::vector<event_spec> events = parse_event_list("{cpu-clock,task-clock}:S");
  EXPECT_TRUE(events[0].sample_read);
  EXPECT_TRUE(events[1].sample_read);
}

TEST(EventList, TermCommasDoNotSeparateEvents) {
  std::vector<event_spec> events =
      parse_event_list("{cpu-clock/period=1000,name=a/,task-clock},cpu-clock/freq=99,name=b/");
  EXPECT_EQ(names(events), (std::vector<std::string>{"a", "task-clock", "b"}));
  EXPECT_EQ(events[0].group_size, 2u);
}

TEST(EventList, MalformedGroupsAreParserErrorsAsInPerf) {
  EXPECT_EQ(list_error("{cpu-clock,{task-clock}}"),
            "event syntax error: '{cpu-clock,{task-clock}}': parser error");
  EXPECT_EQ(list_error("{cpu-clock,task-clock"),
            "event syntax error: '{cpu-clock,task-clock': parser error");
  EXPECT_EQ(list_error("{cpu-clock,}"), "event syntax error: '{cpu-clock,}': parser error");
  EXPECT_EQ(list_error("{cpu-clock}x"), "event syntax error: '{cpu-clock}x': parser error");
  EXPECT_EQ(list_error("cpu-clock,"), "event syntax error: 'cpu-clock,': parser error");
  EXPECT_EQ(list_error("{cpu-clock,task-clock}:x"),
            "unknown modifier 'x' in event '{cpu-clock,task-clock}:x' (supported: u, k, h, G, H, "
            "I, D, e, p, P, S)");
}

TEST(EventList, GroupOptionPutsEveryEventInOneGroup) {
  std::vector<event_spec> events = parse_event_list("{cpu-clock,task-clock},page-faults");
  group_all_events(events);
  EXPECT_EQ(events[0].group_size, 3u);
  EXPECT_TRUE(events[1].group_member);
  EXPECT_TRUE(events[2].group_member);
  EXPECT_EQ(events[2].group_size, 0u);
  std::vector<event_spec> one = parse_event_list("cpu-clock");
  group_all_events(one);
  EXPECT_EQ(one[0].group_size, 0u);
}

}  // namespace
}  // namespace arec::record
