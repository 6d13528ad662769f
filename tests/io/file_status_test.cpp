#include "io/file_status.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <string>
#include <system_error>

#include "io/unique_fd.hpp"
#include "support/temp_dir.hpp"

namespace arec::io {
namespace {

TEST(FileStatus, StatusAtSaysNothingIsThereAndSeesALinkItselfWhenAsked) {
  test::temp_dir dir;
  unique_fd fd = unique_fd::open(dir.file("file").c_str(), O_WRONLY | O_CREAT | O_EXCL, 0600);
  ASSERT_EQ(::symlink("file", dir.file("link").c_str()), 0);
  unique_fd at = unique_fd::open(dir.path().c_str(), O_RDONLY | O_DIRECTORY);
  EXPECT_FALSE(status_at(at.get(), "missing", false));
  EXPECT_FALSE(status_at(at.get(), "file/below", false));  // ENOTDIR: nothing there either
  ASSERT_TRUE(status_at(at.get(), "link", false));
  EXPECT_TRUE(S_ISLNK(status_at(at.get(), "link", false)->st_mode));
  EXPECT_TRUE(S_ISREG(status_at(at.get(), "link", true)->st_mode));
}

TEST(FileStatus, StatusOfAMissingPathThrowsNamingIt) {
  try {
    status_of("/nonexistent-arec-dir/perf.data");
    ADD_FAILURE() << "no error";
  } catch (const std::system_error& error) {
    EXPECT_EQ(std::string(error.what()),
              "stat /nonexistent-arec-dir/perf.data: No such file or directory");
  }
}

TEST(FileStatus, SameFileFollowsLinksAndIsFalseForAMissingOne) {
  test::temp_dir dir;
  unique_fd fd = unique_fd::open(dir.file("file").c_str(), O_WRONLY | O_CREAT | O_EXCL, 0600);
  ASSERT_EQ(::symlink(dir.file("file").c_str(), dir.file("link").c_str()), 0);
  EXPECT_TRUE(same_file(dir.file("file"), dir.file("link")));
  EXPECT_FALSE(same_file(dir.file("file"), dir.file("missing")));
}

}  // namespace
}  // namespace arec::io
