#include "io/output_path.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <string>
#include <system_error>

#include "support/temp_dir.hpp"

using arec::io::create_pending_output_file;
using arec::io::pending_output;
using arec::io::publish_output_file;

namespace {

bool exists(const std::string& path) { return ::access(path.c_str(), F_OK) == 0; }

}  // namespace

TEST(PendingOutput, HasNoNameUntilPublishedWithWhatWasWritten) {
  arec::test::temp_dir dir;
  std::string path = dir.file("out.data");
  pending_output file = create_pending_output_file(path);
  ASSERT_TRUE(file.fd);
  EXPECT_FALSE(exists(path));
  ASSERT_EQ(::write(file.fd.get(), "PERFILE2", 8), 8);
  publish_output_file(file, path);
  struct stat st {};
  ASSERT_EQ(::stat(path.c_str(), &st), 0);
  EXPECT_EQ(st.st_size, 8);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  // The descriptor goes on writing into the named file.
  ASSERT_EQ(::write(file.fd.get(), "more", 4), 4);
  ASSERT_EQ(::stat(path.c_str(), &st), 0);
  EXPECT_EQ(st.st_size, 12);
}

TEST(PendingOutput, LeavesNothingWhenNeverPublished) {
  arec::test::temp_dir dir;
  std::string path = dir.file("out.data");
  { pending_output file = create_pending_output_file(path); }
  EXPECT_TRUE(std::filesystem::is_empty(dir.path()));
}

TEST(PendingOutput, PublishingOverAnExistingFileFailsNamingIt) {
  arec::test::temp_dir dir;
  std::string path = dir.file("out.data");
  pending_output file = create_pending_output_file(path);
  ASSERT_EQ(::symlink("/etc/passwd", path.c_str()), 0);
  try {
    publish_output_file(file, path);
    ADD_FAILURE() << "published over a planted symlink";
  } catch (const std::system_error& error) {
    EXPECT_EQ(std::string(error.what()), "create " + path + ": File exists");
  }
}

TEST(PendingOutput, CreatingInAMissingDirectoryFailsNamingThePath) {
  try {
    create_pending_output_file("/nonexistent-arec-dir/out.data");
    ADD_FAILURE() << "created";
  } catch (const std::system_error& error) {
    EXPECT_EQ(std::string(error.what()),
              "create /nonexistent-arec-dir/out.data: No such file or directory");
  }
}

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
