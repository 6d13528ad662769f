// tracefs on a machine that has none mounted: arec reaches a private instance of its own and the
// host's mount table stays as it was; without the right to mount, the failed call is named.
#include "host/tracefs.hpp"

#include <gtest/gtest.h>
#include <linux/capability.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <string>
#include <system_error>
#include <vector>

#include "support/forked.hpp"
#include "support/temp_dir.hpp"

namespace arec::host::tracefs {
namespace {

using test::cannot_run_here;
using test::forked_result;

// Clears CAP_SYS_ADMIN from the effective set of this (child) process.
bool drop_sys_admin(std::string& report) {
  __user_cap_header_struct header{_LINUX_CAPABILITY_VERSION_3, 0};
  __user_cap_data_struct data[2]{};
  if (::syscall(SYS_capget, &header, data) != 0) return (report = "capget failed"), false;
  data[CAP_SYS_ADMIN / 32].effective &= ~(1u << (CAP_SYS_ADMIN % 32));
  if (::syscall(SYS_capset, &header, data) != 0) return (report = "capset failed"), false;
  return true;
}

TEST(Tracefs, PrivateMountReadsTracepointsAndLeavesTheMountTableAsItWas) {
  forked_result child = test::run_forked([](std::string& report) {
    if (std::string why = test::hide_tracefs(); !why.empty())
      return (report = why), cannot_run_here;
    if (find_mounted_root()) return (report = "a tracefs is still visible"), 1;
    std::string before = test::mount_table();
    private_mount mount = private_mount::create();
    std::uint64_t id = read_tracepoint_id(mount.root(), "sched", "sched_switch");
    std::string format = read_file(mount.root(), "events/sched/sched_switch/format");
    if (id == 0 || format.find("name: sched_switch") == std::string::npos)
      return (report = "id " + std::to_string(id) + ", format:\n" + format), 1;
    if (test::mount_table() != before) return (report = "the mount table changed"), 1;
    return 0;
  });
  if (child.status == cannot_run_here) GTEST_SKIP() << child.text;
  EXPECT_EQ(child.status, 0) << child.text;
}

TEST(Tracefs, WithoutTheRightToMountTheFailedCallIsNamed) {
  forked_result child = test::run_forked([](std::string& report) {
    if (std::string why = test::hide_tracefs(); !why.empty())
      return (report = why), cannot_run_here;
    if (!drop_sys_admin(report)) return cannot_run_here;
    try {
      private_mount::create();
    } catch (const std::system_error& error) {
      report = error.what();
      return 0;
    }
    return (report = "mounted without CAP_SYS_ADMIN"), 1;
  });
  if (child.status == cannot_run_here) GTEST_SKIP() << child.text;
  EXPECT_EQ(child.status, 0) << child.text;
  EXPECT_EQ(child.text, "fsopen tracefs: Operation not permitted");
}

TEST(Tracefs, ListDirectoriesNamesOnlyDirectoriesAndNothingWhenMissing) {
  test::temp_dir root;
  ASSERT_EQ(::mkdir(root.file("events").c_str(), 0755), 0);
  for (const char* system : {"sched", "irq"})
    ASSERT_EQ(::mkdir(root.file(std::string("events/") + system).c_str(), 0755), 0);
  std::ofstream(root.file("events/enable")) << "0\n";  // a file, as tracefs has: not listed
  std::vector<std::string> systems = list_directories(root.path(), "events");
  std::sort(systems.begin(), systems.end());
  EXPECT_EQ(systems, (std::vector<std::string>{"irq", "sched"}));
  EXPECT_TRUE(list_directories(root.path(), "events/sched").empty());
  EXPECT_TRUE(list_directories(root.path(), "events/nosuchsystem").empty());
}

}  // namespace
}  // namespace arec::host::tracefs
