// process_perf_map: a JIT runtime's perf map is found as its process sees it (its root, its pid
// in its namespace), a link cannot lead out of the process's root, and a map that someone else
// could have planted or may still rewrite is refused with the reason. /proc is a tree the test
// builds (proc_root), with the process's root a plain directory.
#include "io/process_perf_map.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>

#include "support/temp_dir.hpp"

namespace arec::io {
namespace {

class ProcessPerfMap : public ::testing::Test {
 protected:
  void SetUp() override {
    ::mkdir(dir_.file("proc").c_str(), 0755);
    ::mkdir(dir_.file("proc/1234").c_str(), 0755);
    ::mkdir(root().c_str(), 0755);
    ::mkdir((root() + "/tmp").c_str(), 0755);
    // Host pid 1234 is pid 7 in its namespace; its effective uid is 5000.
    std::ofstream{dir_.file("proc/1234/status")}
        << "Name:\tnode\nUid:\t5000\t5000\t5000\t5000\nNSpid:\t1234\t7\n";
  }
  std::string root() const { return dir_.file("proc/1234/root"); }
  std::string write_map(const std::string& path = "/tmp/perf-7.map") const {
    std::ofstream{root() + path} << "1000 10 jsHot\n";
    return root() + path;
  }
  process_perf_map open() const { return open_process_perf_map(1234, {dir_.file("proc")}); }
  static std::string text_of(const process_perf_map& map) {
    char buffer[64] = {};
    ssize_t got = ::pread(map.fd.get(), buffer, sizeof buffer - 1, 0);
    return got > 0 ? std::string(buffer, static_cast<std::size_t>(got)) : std::string{};
  }

  test::temp_dir dir_;
};

TEST_F(ProcessPerfMap, TheMapIsNamedWithThePidInTheProcesssNamespaceUnderItsRoot) {
  write_map();
  process_perf_map map = open();
  EXPECT_EQ(map.path, "/tmp/perf-7.map");
  EXPECT_EQ(map.problem, "");
  EXPECT_EQ(text_of(map), "1000 10 jsHot\n");
}

TEST_F(ProcessPerfMap, NoMapOrNoProcessIsNoProblem) {
  process_perf_map none = open();
  EXPECT_FALSE(none.fd);
  EXPECT_EQ(none.problem, "");
  process_perf_map gone = open_process_perf_map(999, {dir_.file("proc")});
  EXPECT_FALSE(gone.fd);
  EXPECT_EQ(gone.problem, "");
}

TEST_F(ProcessPerfMap, AnAbsoluteLinkInTheContainerStaysInsideItsRoot) {
  ::rmdir((root() + "/tmp").c_str());
  ::mkdir((root() + "/private-tmp").c_str(), 0755);
  ASSERT_EQ(::symlink("/private-tmp", (root() + "/tmp").c_str()), 0);
  write_map("/private-tmp/perf-7.map");
  process_perf_map map = open();
  EXPECT_EQ(map.problem, "");
  EXPECT_EQ(text_of(map), "1000 10 jsHot\n") << "the link must resolve inside the root";
}

TEST_F(ProcessPerfMap, AMapThatIsALinkIsRefused) {
  std::ofstream{dir_.file("elsewhere")} << "1000 10 planted\n";
  ASSERT_EQ(::symlink(dir_.file("elsewhere").c_str(), (root() + "/tmp/perf-7.map").c_str()), 0);
  process_perf_map map = open();
  EXPECT_FALSE(map.fd);
  EXPECT_EQ(map.problem, "is a symbolic link");
}

TEST_F(ProcessPerfMap, OnlyTheProcesssUserRootOrArecsUserMayOwnIt) {
  std::string path = write_map();
  ASSERT_EQ(::chown(path.c_str(), 5000, 5000), 0);
  EXPECT_TRUE(open().fd) << "the process's own user wrote it";
  ASSERT_EQ(::chown(path.c_str(), 4242, 4242), 0);
  process_perf_map planted = open();
  EXPECT_FALSE(planted.fd);
  EXPECT_NE(planted.problem.find("is owned by uid 4242"), std::string::npos) << planted.problem;
}

TEST_F(ProcessPerfMap, AMapOthersMayWriteIsRefused) {
  std::string path = write_map();
  ASSERT_EQ(::chmod(path.c_str(), 0666), 0);
  process_perf_map map = open();
  EXPECT_FALSE(map.fd);
  EXPECT_EQ(map.problem, "may be written by group or others");
}

}  // namespace
}  // namespace arec::io
