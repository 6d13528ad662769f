#include "io/proc_status.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>

#include "io/small_file.hpp"

using arec::io::file_state;
using arec::io::parse_task_status;
using arec::io::small_file;

namespace {

std::string fixture(const char* name) {
  std::ifstream in{std::string{AREC_TEST_SOURCE_DIR} + "/fixtures/proc/" + name};
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace

TEST(ProcStatus, KernelThreadHasThreadsButNoVmPeak) {
  auto status = parse_task_status(fixture("status_kthread"));
  EXPECT_TRUE(status.kernel_thread());
  EXPECT_FALSE(status.has_vm_peak);
  EXPECT_EQ(status.tgid, 94);
  EXPECT_EQ(status.ppid, 2);
  // Workqueue names are longer than a comm; they are cut like perf's 16-byte comm.
  EXPECT_EQ(status.name(), "kworker/0:1H-kb");
  EXPECT_EQ(status.comm[15], '\0');
}

TEST(ProcStatus, NameKeepsSpacesAndDecodesEscapes) {
  auto status = parse_task_status(fixture("status_spaces"));
  EXPECT_EQ(status.name(), "  my app\\v2\nx");
  EXPECT_EQ(status.tgid, 4242);
  EXPECT_EQ(status.ppid, 1);
  EXPECT_TRUE(status.has_vm_peak);
  EXPECT_FALSE(status.kernel_thread());
}

TEST(ProcStatus, MissingFieldsKeepDefaults) {
  auto status = parse_task_status("Name:\tx\n");
  EXPECT_EQ(status.name(), "x");
  EXPECT_EQ(status.tgid, -1);
  EXPECT_EQ(status.ppid, -1);
  EXPECT_FALSE(status.kernel_thread());
}

TEST(ProcStatus, OwnStatusShowsOurIds) {
  char buffer[4096];
  auto text = arec::io::read_small_file(AT_FDCWD, "/proc/self/status", buffer);
  ASSERT_TRUE(text.has_value());
  auto status = parse_task_status(*text);
  EXPECT_EQ(status.tgid, ::getpid());
  EXPECT_EQ(status.ppid, ::getppid());
  EXPECT_TRUE(status.has_vm_peak);
  EXPECT_FALSE(status.kernel_thread());
}

TEST(SmallFile, ExitedTaskIsGoneNotAnError) {
  pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) ::_exit(0);
  ASSERT_EQ(::waitpid(child, nullptr, 0), child);
  std::string path = "/proc/" + std::to_string(child) + "/status";
  auto file = small_file::open_at(AT_FDCWD, path.c_str());
  EXPECT_FALSE(file);
  EXPECT_EQ(file.state(), file_state::gone);
  char buffer[64];
  EXPECT_FALSE(arec::io::read_small_file(AT_FDCWD, path.c_str(), buffer).has_value());
}

TEST(SmallFile, OtherOpenFailuresThrowNamingThePath) {
  try {
    small_file::open_at(AT_FDCWD, "/proc/self/status/not_a_dir");
    ADD_FAILURE() << "no exception";
  } catch (const std::system_error& error) {
    EXPECT_STREQ(error.what(), "open /proc/self/status/not_a_dir: Not a directory");
  }
}

TEST(SmallFile, ReadAllStopsAtTheBufferEnd) {
  char buffer[5];
  auto text = arec::io::read_small_file(AT_FDCWD, "/proc/self/status", buffer);
  ASSERT_TRUE(text.has_value());
  EXPECT_EQ(*text, "Name:");
}
