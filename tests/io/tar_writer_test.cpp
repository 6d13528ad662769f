// tar_writer: what it writes, GNU tar reads back — files with their content and mode, symbolic
// links as links, hard links as files, directories with everything below them, paths longer
// than ustar's 100 bytes — and a path that cannot be read is an error that names it.
#include "io/tar_writer.hpp"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <sstream>
#include <string>

#include "io/unique_fd.hpp"
#include "support/child_process.hpp"
#include "support/temp_dir.hpp"

namespace arec::io {
namespace {

std::string read_file(const std::string& path) {
  std::ifstream in{path};
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

class TarWriter : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_EQ(::mkdir(dir_.file("tree").c_str(), 0755), 0);
    ASSERT_EQ(::mkdir(dir_.file("out").c_str(), 0755), 0);
  }
  std::string tree(const std::string& name) const { return dir_.file("tree/" + name); }
  void write_tree_file(const std::string& name, const std::string& content) {
    test::run_command({"mkdir", "-p", tree(name.substr(0, name.rfind('/')))});
    std::ofstream{tree(name)} << content;
  }
  // Writes an archive of `names` (relative to the tree) and extracts it into out/.
  void archive_and_extract(const std::vector<std::string>& names) {
    std::string archive = dir_.file("a.tar.bz2");
    {
      unique_fd fd{::open(archive.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600)};
      ASSERT_TRUE(fd);
      tar_writer tar(fd.get(), archive);
      for (const std::string& name : names) tar.add(dir_.file("tree"), name);
      tar.finish();
    }
    test::command_result extracted =
        test::run_command({"tar", "xjf", archive, "-C", dir_.file("out")});
    ASSERT_EQ(extracted.exit_code, 0) << extracted.describe();
  }
  std::string out(const std::string& name) const { return dir_.file("out/" + name); }

  test::temp_dir dir_;
};

TEST_F(TarWriter, FilesAndDirectoriesComeBackWithTheirContentAndMode) {
  write_tree_file("a/b/elf", "an elf file");
  write_tree_file("a/b/probes", "");
  ASSERT_EQ(::chmod(tree("a/b/elf").c_str(), 0751), 0);
  archive_and_extract({"a"});
  EXPECT_EQ(read_file(out("a/b/elf")), "an elf file");
  EXPECT_EQ(read_file(out("a/b/probes")), "");
  struct stat status {};
  ASSERT_EQ(::stat(out("a/b/elf").c_str(), &status), 0);
  EXPECT_EQ(status.st_mode & 07777, 0751u);
}

TEST_F(TarWriter, SymbolicLinksStayLinksAndHardLinksBecomeFiles) {
  write_tree_file("x/obj/elf", "content");
  ASSERT_EQ(::symlink("../x/obj", tree("link").c_str()), 0);
  ASSERT_EQ(::link(tree("x/obj/elf").c_str(), tree("hard").c_str()), 0);
  archive_and_extract({"link", "hard"});
  char target[64] = {};
  ASSERT_GT(::readlink(out("link").c_str(), target, sizeof target - 1), 0);
  EXPECT_STREQ(target, "../x/obj");
  EXPECT_EQ(read_file(out("hard")), "content");
}

TEST_F(TarWriter, PathsLongerThanUstarAllowsComeBackWhole) {
  std::string deep(3, 'd');
  for (int i = 0; i < 30; ++i) deep += "/component" + std::to_string(i);
  write_tree_file(deep + "/elf", "deep");
  ASSERT_GT(deep.size(), 255u);
  archive_and_extract({"ddd"});
  EXPECT_EQ(read_file(out(deep + "/elf")), "deep");
}

TEST_F(TarWriter, APathThatIsNotThereIsAnErrorNamingIt) {
  std::string archive = dir_.file("a.tar.bz2");
  unique_fd fd{::open(archive.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0600)};
  tar_writer tar(fd.get(), archive);
  try {
    tar.add(dir_.file("tree"), "missing");
    FAIL() << "a missing path was archived";
  } catch (const std::system_error& error) {
    EXPECT_NE(std::string(error.what()).find("lstat " + tree("missing")), std::string::npos)
        << error.what();
  }
}

}  // namespace
}  // namespace arec::io
