#include "io/file_copy.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <fstream>
#include <sstream>

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

TEST(FileCopy, LinkOrCopyHardLinksOnTheSameFileSystem) {
  test::temp_dir dir;
  { std::ofstream{dir.file("from")} << "content"; }
  link_or_copy(dir.file("from"), dir.file("to"));
  struct stat from {
  }, to{};
  ASSERT_EQ(::stat(dir.file("from").c_str(), &from), 0);
  ASSERT_EQ(::stat(dir.file("to").c_str(), &to), 0);
  EXPECT_EQ(from.st_ino, to.st_ino);
  EXPECT_EQ(contents(dir.file("to")), "content");
}

TEST(FileCopy, LinkOrCopyCopiesAProcFileToItsEnd) {
  test::temp_dir dir;
  link_or_copy("/proc/self/maps", dir.file("maps"));  // no hard link into /proc: a copy
  std::string copy = contents(dir.file("maps"));
  EXPECT_NE(copy.find("[stack]"), std::string::npos) << copy;
}

TEST(FileCopy, LinkOrCopyRefusesAnExistingTarget) {
  test::temp_dir dir;
  { std::ofstream{dir.file("from")} << "a"; }
  { std::ofstream{dir.file("to")} << "b"; }
  EXPECT_THROW(link_or_copy(dir.file("from"), dir.file("to")), std::system_error);
  EXPECT_EQ(contents(dir.file("to")), "b");
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

TEST(FileCopy, ReplaceFileAtomicallyLeavesOnlyTheWholeFile) {
  test::temp_dir dir;
  std::string first = "first window", second = "second";
  replace_file_atomically(dir.path(), "w.pb", std::as_bytes(std::span{first}));
  replace_file_atomically(dir.path(), "w.pb", std::as_bytes(std::span{second}));
  EXPECT_EQ(contents(dir.file("w.pb")), second);
  EXPECT_EQ(directory_names(dir.path()), std::vector<std::string>{"w.pb"}) << "no .tmp left";
  struct stat status {};
  ASSERT_EQ(::stat(dir.file("w.pb").c_str(), &status), 0);
  EXPECT_EQ(status.st_mode & 0777, 0600u);
}

TEST(FileCopy, ReplaceFileAtomicallyNamesTheFileItCannotWrite) {
  try {
    replace_file_atomically("/nonexistent-dir", "w.pb", {});
    ADD_FAILURE() << "no error";
  } catch (const std::system_error& error) {
    EXPECT_EQ(std::string(error.what()),
              "open /nonexistent-dir/.w.pb.tmp: No such file or directory");
  }
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
