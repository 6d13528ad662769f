#include "io/small_file.hpp"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <string>
#include <system_error>
#include <utility>
#include <vector>

#include "support/temp_file.hpp"

using arec::io::file_state;
using arec::io::small_file;

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

TEST(LineReader, LastLineWithoutNewlineIsReturned) {
  arec::test::temp_file file;
  ASSERT_EQ(::write(file.fd(), "one\ntwo\nthree", 13), 13);
  small_file f = small_file::open_at(AT_FDCWD, file.path().c_str());
  char buffer[4];
  arec::io::line_reader lines{f, buffer};
  std::vector<std::pair<std::string, bool>> got;
  while (auto line = lines.next()) got.emplace_back(std::string{line->text}, line->truncated);
  std::vector<std::pair<std::string, bool>> expected{
      {"one", false}, {"two", false}, {"thre", true}};
  EXPECT_EQ(got, expected);
}
