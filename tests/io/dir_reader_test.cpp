#include "io/dir_reader.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <map>
#include <string>

#include "support/temp_dir.hpp"

using arec::io::dir_reader;
using arec::io::unique_fd;
using arec::test::temp_dir;

namespace {

std::string long_name(int i) { return std::string(200, 'n') + "_" + std::to_string(i); }

}  // namespace

TEST(DirReader, ListsEveryEntryOfALargeDirectoryExactlyOnce) {
  temp_dir dir;
  constexpr int count = 2000;
  for (int i = 0; i < count; ++i) {
    unique_fd::open(dir.file(long_name(i)).c_str(), O_CREAT | O_WRONLY, 0600);
  }
  // 2000 entries of ~224 bytes are about a hundred getdents64 buffers.
  ASSERT_GT(count * 224, static_cast<int>(dir_reader::buffer_size) * 50);

  dir_reader reader{unique_fd::open(dir.path().c_str(), O_RDONLY | O_DIRECTORY)};
  std::map<std::string, int> seen;
  while (auto entry = reader.next()) {
    EXPECT_EQ(entry->name.data()[entry->name.size()], '\0');
    EXPECT_EQ(entry->type, DT_REG);
    ++seen[std::string{entry->name}];
  }
  ASSERT_EQ(seen.size(), static_cast<std::size_t>(count));
  for (int i = 0; i < count; ++i) EXPECT_EQ(seen[long_name(i)], 1) << long_name(i);
  EXPECT_FALSE(reader.next().has_value()) << "the end stays the end";
}

TEST(DirReader, SkipsDotEntriesAndReportsDirectories) {
  temp_dir dir;
  ASSERT_EQ(::mkdir(dir.file("sub").c_str(), 0700), 0);
  dir_reader reader{unique_fd::open(dir.path().c_str(), O_RDONLY | O_DIRECTORY)};
  auto entry = reader.next();
  ASSERT_TRUE(entry.has_value());
  EXPECT_EQ(entry->name, "sub");
  EXPECT_EQ(entry->type, DT_DIR);
  EXPECT_NE(entry->inode, 0u);
  EXPECT_FALSE(reader.next().has_value());
}

TEST(DirReader, TaskDirectoryOfAnExitedProcessJustEnds) {
  pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    ::pause();
    ::_exit(0);
  }
  std::string path = "/proc/" + std::to_string(child) + "/task";
  dir_reader reader{unique_fd::open(path.c_str(), O_RDONLY | O_DIRECTORY)};
  ::kill(child, SIGKILL);
  ASSERT_EQ(::waitpid(child, nullptr, 0), child);
  std::size_t entries = 0;
  EXPECT_NO_THROW(while (reader.next()) ++entries);
  EXPECT_EQ(entries, 0u);
}

TEST(DirReader, ListsProcWithItsOwnProcess) {
  dir_reader reader{unique_fd::open("/proc", O_RDONLY | O_DIRECTORY)};
  std::string self = std::to_string(::getpid());
  bool found = false;
  while (auto entry = reader.next()) found = found || entry->name == self;
  EXPECT_TRUE(found);
}
