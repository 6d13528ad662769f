#include "host/proc_status.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>
#include <sstream>
#include <string>

#include "io/small_file.hpp"

using arec::host::parse_task_status;

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
