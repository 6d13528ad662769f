#include "record/synthesis/target_tasks.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <vector>

#include "support/temp_dir.hpp"

using arec::record::processes_of_user;

TEST(ProcessesOfUser, FindsTheUsersProcessesButTheOneLeftOut) {
  std::vector<pid_t> mine = processes_of_user(::getuid(), -1);
  EXPECT_TRUE(std::is_sorted(mine.begin(), mine.end()));
  EXPECT_TRUE(std::binary_search(mine.begin(), mine.end(), ::getpid()));
  std::vector<pid_t> others = processes_of_user(::getuid(), ::getpid());
  EXPECT_FALSE(std::binary_search(others.begin(), others.end(), ::getpid()));
  // A uid nobody has owns nothing.
  EXPECT_TRUE(processes_of_user(4000000000u, -1).empty());
}

TEST(ProcessesOfUser, AMissingProcRootIsAnError) {
  arec::test::temp_dir dir;
  EXPECT_THROW(processes_of_user(0, -1, dir.file("missing").c_str()), std::system_error);
}

TEST(ThreadsOfProcesses, SkipsAGoneProcessOnlyWhenAsked) {
  std::vector<int> gone{0x3fffffff};  // above pid_max: never a process
  EXPECT_TRUE(arec::record::threads_of_processes(gone, true).empty());
  EXPECT_ANY_THROW(arec::record::threads_of_processes(gone));
}
