#include "io/owned_files.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <string>
#include <vector>

#include "io/file_copy.hpp"
#include "support/temp_dir.hpp"

namespace arec::io {
namespace {

void write_text(const std::string& path, const std::string& text, mode_t mode) {
  unique_fd fd = unique_fd::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);
  ASSERT_EQ(::write(fd.get(), text.data(), text.size()), static_cast<ssize_t>(text.size()));
}

TEST(OwnedFiles, ReadsARegularFileUpToItsBound) {
  test::temp_dir dir;
  write_text(dir.file("small"), "token\n", 0600);
  auto small = read_bounded_regular_file(AT_FDCWD, dir.file("small"), 6);
  ASSERT_TRUE(small);
  EXPECT_EQ(small->problem, "");
  EXPECT_EQ(small->text, "token\n");
  EXPECT_EQ(small->status.st_uid, ::geteuid());
  auto over = read_bounded_regular_file(AT_FDCWD, dir.file("small"), 5);
  ASSERT_TRUE(over);
  EXPECT_EQ(over->problem, "holds more than 5 bytes");
  EXPECT_EQ(over->text, "");
  EXPECT_FALSE(read_bounded_regular_file(AT_FDCWD, dir.file("missing"), 5));
}

TEST(OwnedFiles, NeverReadsADeviceAFifoOrThroughALinkWhenToldNotTo) {
  test::temp_dir dir;
  EXPECT_EQ(read_bounded_regular_file(AT_FDCWD, "/dev/zero", 16)->problem, "is not a regular file");
  ASSERT_EQ(::mkfifo(dir.file("fifo").c_str(), 0600), 0);
  EXPECT_EQ(read_bounded_regular_file(AT_FDCWD, dir.file("fifo"), 16)->problem,
            "is not a regular file");
  write_text(dir.file("real"), "x", 0600);
  ASSERT_EQ(::symlink(dir.file("real").c_str(), dir.file("link").c_str()), 0);
  EXPECT_EQ(read_bounded_regular_file(AT_FDCWD, dir.file("link"), 16, O_NOFOLLOW)->problem,
            "is a symbolic link");
  EXPECT_EQ(read_bounded_regular_file(AT_FDCWD, dir.file("link"), 16)->text, "x");
}

TEST(OwnedFiles, OwnershipProblemIsSshsRule) {
  struct stat status {};
  status.st_uid = ::geteuid();
  status.st_mode = S_IFREG | 0600;
  EXPECT_EQ(ownership_problem(status, false, true), "");
  status.st_mode = S_IFREG | 0640;
  EXPECT_EQ(ownership_problem(status, false, true),
            "is readable or writable by group or others (mode 0640)");
  EXPECT_EQ(ownership_problem(status, false, false), "") << "only writes matter for a directory";
  status.st_mode = S_IFDIR | 0775;
  EXPECT_EQ(ownership_problem(status, false, false), "is writable by group or others (mode 0775)");
  status.st_mode = S_IFREG | 0600;
  status.st_uid = ::geteuid() + 1;
  EXPECT_NE(ownership_problem(status, true, true), "");
}

TEST(OwnedFiles, APrivateDirectoryIsMade0700AndWrittenThroughItsFd) {
  test::temp_dir dir;
  private_directory made = open_private_directory(dir.file("a/b/spool"));
  ASSERT_EQ(made.problem, "");
  ASSERT_TRUE(made.fd);
  EXPECT_TRUE(made.created);
  struct stat status {};
  ASSERT_EQ(::stat(dir.file("a/b/spool").c_str(), &status), 0);
  EXPECT_EQ(status.st_mode & 07777, 0700u);
  std::string text = "window";
  write_file_atomically_at(made.fd.get(), dir.file("a/b/spool"), "w.pb",
                           std::as_bytes(std::span{text.data(), text.size()}));
  EXPECT_EQ(read_bounded_regular_file(made.fd.get(), "w.pb", 64, O_NOFOLLOW)->text, "window");
  EXPECT_TRUE(remove_file_at(made.fd.get(), "w.pb"));
  EXPECT_FALSE(remove_file_at(made.fd.get(), "w.pb"));
  private_directory again = open_private_directory(dir.file("a/b/spool"));
  EXPECT_FALSE(again.created);
  EXPECT_EQ(again.problem, "");
}

TEST(OwnedFiles, AFailedWriteLeavesNoTemporaryFile) {
  test::temp_dir dir;
  private_directory made = open_private_directory(dir.file("spool"));
  ASSERT_TRUE(made.fd);
  // The rename fails (a directory is in the way): the temporary file must go.
  ASSERT_EQ(::mkdir(dir.file("spool/w.pb").c_str(), 0700), 0);
  ASSERT_EQ(::mkdir(dir.file("spool/w.pb/x").c_str(), 0700), 0);
  std::string text = "window";
  EXPECT_THROW(write_file_atomically_at(made.fd.get(), dir.file("spool"), "w.pb",
                                        std::as_bytes(std::span{text.data(), text.size()})),
               std::system_error);
  EXPECT_EQ(directory_names(dir.file("spool")), std::vector<std::string>{"w.pb"});
}

// A kill between write and rename leaves a temporary behind: it must not make every later
// write of that name fail.
TEST(OwnedFiles, ATemporaryLeftByAKilledWriteDoesNotBlockTheNextOne) {
  test::temp_dir dir;
  private_directory made = open_private_directory(dir.file("spool"));
  ASSERT_TRUE(made.fd);
  write_text(dir.file("spool/.w.pb.tmp"), "half a window", 0600);
  std::string text = "window";
  write_file_atomically_at(made.fd.get(), dir.file("spool"), "w.pb",
                           std::as_bytes(std::span{text.data(), text.size()}));
  EXPECT_EQ(read_bounded_regular_file(made.fd.get(), "w.pb", 64, O_NOFOLLOW)->text, "window");
}

// A file whose size says nothing (a /proc file says 0) or that grows while read (a perf map) is
// still read whole, with memory for what it holds rather than for the bound.
TEST(OwnedFiles, AnOpenFileIsReadWholeWhateverItsSizeSays) {
  unique_fd status = unique_fd::open("/proc/self/status", O_RDONLY);
  bounded_file read = read_bounded_open_file(status.get(), "/proc/self/status", 1 << 20);
  EXPECT_EQ(read.problem, "");
  EXPECT_NE(read.text.find("NSpid:"), std::string::npos) << read.text;
  EXPECT_LT(read.text.capacity(), std::size_t{1} << 20);
  bounded_file cut = read_bounded_open_file(status.get(), "/proc/self/status", 10);
  EXPECT_NE(cut.problem.find("holds more than 10 bytes"), std::string::npos) << cut.problem;
}

}  // namespace
}  // namespace arec::io
