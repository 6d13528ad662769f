#include "io/file_copy.hpp"

#include <gtest/gtest.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <sstream>

#include "io/unique_fd.hpp"
#include "support/temp_dir.hpp"

namespace arec::io {
namespace {

std::string contents(const std::string& path) {
  std::ifstream file{path};
  std::stringstream text;
  text << file.rdbuf();
  return text.str();
}

TEST(FileCopy, MakeDirectoriesCreatesEveryMissingParentAndAcceptsExistingOnes) {
  test::temp_dir dir;
  std::string deep = dir.file("a/b/c");
  make_directories(deep);
  make_directories(deep);  // already there: no error
  struct stat status {};
  ASSERT_EQ(::stat(deep.c_str(), &status), 0);
  EXPECT_TRUE(S_ISDIR(status.st_mode));
}

TEST(FileCopy, MakeDirectoriesNamesThePathItCannotCreate) {
  test::temp_dir dir;
  { std::ofstream{dir.file("file")} << "x"; }
  try {
    make_directories(dir.file("file/below"));
    FAIL() << "no error";
  } catch (const std::system_error& error) {
    EXPECT_EQ(std::string{error.what()}.rfind("mkdir " + dir.file("file/below"), 0), 0u)
        << error.what();
  }
}

// A file with data at its start and at 8 MiB, 16 MiB long: the copy has both, the same size,
// and only the data's blocks.
TEST(FileCopy, CopySparseKeepsTheHoles) {
  test::temp_dir dir;
  {
    unique_fd file = unique_fd::open(dir.file("from").c_str(), O_WRONLY | O_CREAT, 0600);
    ASSERT_EQ(::pwrite(file.get(), "head", 4, 0), 4);
    ASSERT_EQ(::pwrite(file.get(), "middle", 6, 8 << 20), 6);
    ASSERT_EQ(::ftruncate(file.get(), 16 << 20), 0);
  }
  unique_fd from = unique_fd::open(dir.file("from").c_str(), O_RDONLY);
  unique_fd to = unique_fd::open(dir.file("to").c_str(), O_RDWR | O_CREAT | O_EXCL, 0600);
  std::optional<std::uint64_t> written =
      copy_sparse(from.get(), dir.file("from"), to.get(), dir.file("to"), 1 << 20);
  ASSERT_TRUE(written);
  EXPECT_LT(*written, 1u << 20);
  struct stat copy {};
  ASSERT_EQ(::fstat(to.get(), &copy), 0);
  EXPECT_EQ(copy.st_size, 16 << 20);
  EXPECT_LT(copy.st_blocks * 512, 1 << 20);
  char head[4], middle[6];
  ASSERT_EQ(::pread(to.get(), head, 4, 0), 4);
  ASSERT_EQ(::pread(to.get(), middle, 6, 8 << 20), 6);
  EXPECT_EQ(std::string(head, 4), "head");
  EXPECT_EQ(std::string(middle, 6), "middle");
}

TEST(FileCopy, CopySparseStopsAtItsLimit) {
  test::temp_dir dir;
  { std::ofstream{dir.file("from")} << std::string(64 * 1024, 'x'); }
  unique_fd from = unique_fd::open(dir.file("from").c_str(), O_RDONLY);
  unique_fd to = unique_fd::open(dir.file("to").c_str(), O_RDWR | O_CREAT | O_EXCL, 0600);
  EXPECT_FALSE(copy_sparse(from.get(), dir.file("from"), to.get(), dir.file("to"), 4096));
}

TEST(FileCopy, CopyToEndCopiesAProcFile) {
  test::temp_dir dir;
  unique_fd from = unique_fd::open("/proc/self/maps", O_RDONLY);  // its size reads as 0
  unique_fd to = unique_fd::open(dir.file("maps").c_str(), O_WRONLY | O_CREAT | O_EXCL, 0600);
  copy_to_end(from.get(), "/proc/self/maps", to.get(), dir.file("maps"));
  std::string copy = contents(dir.file("maps"));
  EXPECT_NE(copy.find("[stack]"), std::string::npos) << copy;
}

TEST(FileCopy, WriteNewFileWritesTheBytesWithTheMode) {
  test::temp_dir dir;
  std::string text = "vdso bytes";
  write_new_file(dir.file("out"), std::as_bytes(std::span{text}), 0600);
  EXPECT_EQ(contents(dir.file("out")), text);
  struct stat status {};
  ASSERT_EQ(::stat(dir.file("out").c_str(), &status), 0);
  EXPECT_EQ(status.st_mode & 0777, 0600u);
}

TEST(FileCopy, DirectoryNamesSizesAndRemoval) {
  test::temp_dir dir;
  EXPECT_EQ(directory_names(dir.file("absent")), std::vector<std::string>{});
  std::string text = "12345";
  write_new_file(dir.file("a"), std::as_bytes(std::span{text}), 0600);
  EXPECT_EQ(directory_names(dir.path()), std::vector<std::string>{"a"});
  EXPECT_EQ(file_size(dir.file("a")), 5u);
  EXPECT_EQ(file_size(dir.file("b")), std::nullopt);
  EXPECT_TRUE(remove_file(dir.file("a")));
  EXPECT_FALSE(remove_file(dir.file("a")));
}

}  // namespace
}  // namespace arec::io
