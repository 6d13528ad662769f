#include "io/output_path.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>
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
