#include "io/output_path.hpp"

#include <gtest/gtest.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <filesystem>
#include <string>
#include <system_error>

#include "support/temp_dir.hpp"

namespace {

bool exists(const std::string& path) { return ::access(path.c_str(), F_OK) == 0; }

}  // namespace

TEST(RenameOutput, MovesADirectoryOutputAndNamesBothPathsWhenItFails) {
  arec::test::temp_dir dir;
  ASSERT_EQ(::mkdir(dir.file("perf.data").c_str(), 0700), 0);
  arec::io::rename_output(dir.file("perf.data"), dir.file("perf.data.2026"));
  EXPECT_TRUE(exists(dir.file("perf.data.2026")));
  EXPECT_FALSE(exists(dir.file("perf.data")));
  try {
    arec::io::rename_output(dir.file("perf.data"), dir.file("perf.data.2027"));
    ADD_FAILURE() << "renamed a missing output";
  } catch (const std::system_error& error) {
    EXPECT_EQ(std::string(error.what()), "rename " + dir.file("perf.data") + " to " +
                                             dir.file("perf.data.2027") +
                                             ": No such file or directory");
  }
}

// -o /dev/null: perf renames only an output that holds data; renaming a device would take it
// from everyone else on the machine (a device node made in the test's directory stands in).
TEST(KeepPreviousOutput, ADeviceOrFifoStaysWhereItIs) {
  arec::test::temp_dir dir;
  std::string device = dir.file("null");
  ASSERT_EQ(::mknod(device.c_str(), S_IFCHR | 0666, ::makedev(1, 3)), 0);
  std::string fifo = dir.file("fifo");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  arec::io::keep_previous_output(device);
  arec::io::keep_previous_output(fifo);
  EXPECT_TRUE(exists(device));
  EXPECT_TRUE(exists(fifo));
  EXPECT_FALSE(exists(device + ".old"));
  EXPECT_FALSE(exists(fifo + ".old"));
}

TEST(KeepPreviousOutput, AFileIsKeptAsOld) {
  arec::test::temp_dir dir;
  std::string path = dir.file("perf.data");
  ASSERT_EQ(::close(::creat(path.c_str(), 0600)), 0);
  arec::io::keep_previous_output(path);
  EXPECT_FALSE(exists(path));
  EXPECT_TRUE(exists(path + ".old"));
}
