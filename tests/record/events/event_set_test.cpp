#include "record/events/event_set.hpp"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <optional>
#include <string>
#include <system_error>
#include <vector>

#include "host/cgroup_fs.hpp"

namespace arec::record {
namespace {

// Opens cpu-clock for `target`, or says why the machine does not let it.
std::optional<event_set> open_cpu_clock(const event_target& target, std::string& why) {
  std::vector<event_spec> specs{parse_event_spec("cpu-clock")};
  try {
    return event_set::open(specs, sampling_config{}, target, [](const std::string&) {});
  } catch (const std::exception& error) {
    why = error.what();
    return std::nullopt;
  }
}

// --per-thread: each task's first fd owns its ring, whatever cpu it runs on.
TEST(EventSet, PerThreadRingsAreOnePerTask) {
  event_target target;
  target.cpus = {-1};
  target.tasks = {::gettid()};
  target.ring_per_task = true;
  std::string why;
  std::optional<event_set> events = open_cpu_clock(target, why);
  if (!events) GTEST_SKIP() << why;
  EXPECT_EQ(events->ring_keys(), std::vector<int>{::gettid()});
  for (const opened_event& event : events->events()) EXPECT_EQ(event.ids.size(), 1u);
}

// -u: a task that is gone by the time it is opened is left out, not an error.
TEST(EventSet, GoneTasksAreSkippedOnlyWhenAsked) {
  event_target target;
  target.cpus = {0};
  target.tasks = {::gettid(), 0x3fffffff};  // the second is above pid_max: never a task
  target.skip_gone_tasks = true;
  std::string why;
  std::optional<event_set> events = open_cpu_clock(target, why);
  if (!events) GTEST_SKIP() << why;
  EXPECT_EQ(events->ring_keys(), std::vector<int>{0});
  for (const opened_event& event : events->events()) EXPECT_EQ(event.ids.size(), 1u);
  target.skip_gone_tasks = false;
  EXPECT_FALSE(open_cpu_clock(target, why)) << "a missing -p task is an error";
}

// -G: the event opens per cpu on the cgroup's fd.
TEST(EventSet, CgroupEventsOpenOnEveryCpuWithTheCgroupsFd) {
  std::optional<std::string> mount = host::perf_event_cgroup_mount();
  if (!mount) GTEST_SKIP() << "no cgroup file system is mounted";
  io::unique_fd root = host::open_cgroup(*mount, "/");
  event_target target;
  target.cpus = {0};
  target.cgroup_fds = {root.get()};
  std::string why;
  std::optional<event_set> events = open_cpu_clock(target, why);
  if (!events) GTEST_SKIP() << why;
  EXPECT_EQ(events->ring_keys(), std::vector<int>{0});
  EXPECT_EQ(events->events().front().ids.size(), 1u);
}

}  // namespace
}  // namespace arec::record
