// process_perf_map: a JIT runtime's perf map is found as its process sees it (its root, its pid
// in its namespace), a link cannot lead out of the process's root, and a map that someone else
// could have planted or may still rewrite, or whose text the process's user could not read
// (root's file, a file mounted over the map's path), is refused with the reason. /proc is a
// tree the test builds (proc_root), with the process's root a plain directory.
#include "host/process_perf_map.hpp"

#include <gtest/gtest.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>

#include "support/forked.hpp"
#include "support/temp_dir.hpp"

namespace arec::host {
namespace {

class ProcessPerfMap : public ::testing::Test {
 protected:
  void SetUp() override {
    ::mkdir(dir_.file("proc").c_str(), 0755);
    ::mkdir(dir_.file("proc/1234").c_str(), 0755);
    ::mkdir(root().c_str(), 0755);
    ::mkdir((root() + "/tmp").c_str(), 0755);
    // Host pid 1234 is pid 7 in its namespace; it runs as uid 5000.
    run_as("5000\t5000\t5000\t5000");
  }
  void run_as(const std::string& uids) const {
    std::ofstream{dir_.file("proc/1234/status")} << "Name:\tnode\nUid:\t" << uids
                                                 << "\nNSpid:\t1234\t7\n";
  }
  std::string root() const { return dir_.file("proc/1234/root"); }
  // The map as the process (uid 5000) writes it.
  std::string write_map(const std::string& path = "/tmp/perf-7.map") const {
    std::ofstream{root() + path} << "1000 10 jsHot\n";
    EXPECT_EQ(::chown((root() + path).c_str(), 5000, 5000), 0);
    ::chmod((root() + path).c_str(), 0644);
    return root() + path;
  }
  process_perf_map open() const { return open_process_perf_map(1234, {dir_.file("proc")}); }
  // Opens the map, which must be refused for `problem`.
  void expect_refused(const std::string& problem) const {
    host::process_perf_map map = open();
    EXPECT_FALSE(map.fd);
    EXPECT_EQ(map.problem, problem);
  }
  static std::string text_of(const process_perf_map& map) {
    char buffer[64] = {};
    ssize_t got = ::pread(map.fd.get(), buffer, sizeof buffer - 1, 0);
    return got > 0 ? std::string(buffer, static_cast<std::size_t>(got)) : std::string{};
  }

  test::temp_dir dir_;
};

TEST_F(ProcessPerfMap, TheMapIsNamedWithThePidInTheProcesssNamespaceUnderItsRoot) {
  write_map();
  host::process_perf_map map = open();
  EXPECT_EQ(map.path, "/tmp/perf-7.map");
  EXPECT_EQ(map.problem, "");
  EXPECT_EQ(text_of(map), "1000 10 jsHot\n");
}

TEST_F(ProcessPerfMap, NoMapOrNoProcessIsNoProblem) {
  host::process_perf_map none = open();
  EXPECT_FALSE(none.fd);
  EXPECT_EQ(none.problem, "");
  host::process_perf_map gone = host::open_process_perf_map(999, {dir_.file("proc")});
  EXPECT_FALSE(gone.fd);
  EXPECT_EQ(gone.problem, "");
}

TEST_F(ProcessPerfMap, AnAbsoluteLinkInTheContainerStaysInsideItsRoot) {
  ::rmdir((root() + "/tmp").c_str());
  ::mkdir((root() + "/private-tmp").c_str(), 0755);
  ASSERT_EQ(::symlink("/private-tmp", (root() + "/tmp").c_str()), 0);
  write_map("/private-tmp/perf-7.map");
  host::process_perf_map map = open();
  EXPECT_EQ(map.problem, "");
  EXPECT_EQ(text_of(map), "1000 10 jsHot\n") << "the link must resolve inside the root";
}

TEST_F(ProcessPerfMap, AMapThatIsALinkIsRefused) {
  std::ofstream{dir_.file("elsewhere")} << "1000 10 planted\n";
  ASSERT_EQ(::symlink(dir_.file("elsewhere").c_str(), (root() + "/tmp/perf-7.map").c_str()), 0);
  host::process_perf_map map = open();
  EXPECT_FALSE(map.fd);
  EXPECT_EQ(map.problem, "is a symbolic link");
}

TEST_F(ProcessPerfMap, OnlyTheProcesssOwnUserMayOwnIt) {
  std::string path = write_map();
  EXPECT_TRUE(open().fd) << "the process's own user wrote it";
  ASSERT_EQ(::chown(path.c_str(), 4242, 4242), 0);
  expect_refused("is owned by uid 4242, not by the process's user (uid 5000)");
  run_as("4242\t5000\t5000\t5000");
  EXPECT_TRUE(open().fd) << "its real uid is 4242";
}

// Root's file names the frames of a process only when the process runs as root: else the text
// (an ssh host key a user mounted or linked at its map's path) would be kept in the recording
// and name that user's frames, though the user could never read it.
TEST_F(ProcessPerfMap, ARootOwnedMapNamesOnlyAProcessThatRunsAsRoot) {
  std::string path = write_map();
  ASSERT_EQ(::chown(path.c_str(), 0, 0), 0);
  ASSERT_EQ(::chmod(path.c_str(), 0600), 0);
  expect_refused("is owned by uid 0, not by the process's user (uid 5000)");
  run_as("0\t0\t0\t0");
  EXPECT_TRUE(open().fd) << "a root process's map is root's";
}

TEST_F(ProcessPerfMap, AMapOthersMayWriteOrItsOwnerMayNotReadIsRefused) {
  std::string path = write_map();
  ASSERT_EQ(::chmod(path.c_str(), 0666), 0);
  expect_refused("may be written by group or others (mode 0666)");
  ASSERT_EQ(::chmod(path.c_str(), 0244), 0);
  expect_refused("is not readable by its owner (mode 0244)");
}

// A map written late (at the process's exit) is looked for in the /tmp found at its first JIT
// sample, after the process is gone from /proc, and judged by the uids it had then.
TEST_F(ProcessPerfMap, AMapWrittenLateIsFoundInTheKeptTmpByTheSameRules) {
  std::optional<perf_map_place> place = find_perf_map_place(1234, {dir_.file("proc")});
  ASSERT_TRUE(place);
  EXPECT_EQ(place->path(), "/tmp/perf-7.map");
  EXPECT_FALSE(open_perf_map_at(*place).fd) << "none yet";
  EXPECT_EQ(open_perf_map_at(*place).problem, "");
  ::unlink(dir_.file("proc/1234/status").c_str());  // gone
  std::string path = write_map();
  host::process_perf_map late = open_perf_map_at(*place);
  EXPECT_EQ(late.problem, "");
  EXPECT_EQ(text_of(late), "1000 10 jsHot\n");
  ASSERT_EQ(::chown(path.c_str(), 4242, 4242), 0);
  EXPECT_EQ(open_perf_map_at(*place).problem,
            "is owned by uid 4242, not by the process's user (uid 5000)");
}

// A user in a mount namespace of its own may bind-mount any file it can name over its map's
// path, even one it may not read; a map is a file the runtime wrote in its /tmp, never a mount.
// The mount is made in a private mount namespace of a forked child: the host sees none.
TEST_F(ProcessPerfMap, AFileMountedOverTheMapIsRefused) {
  std::string path = write_map();
  std::ofstream{dir_.file("other")} << "1000 10 mounted\n";
  ASSERT_EQ(::chown(dir_.file("other").c_str(), 5000, 5000), 0);
  test::forked_result result = test::run_forked([&](std::string& report) {
    if (::unshare(CLONE_NEWNS) != 0 ||
        ::mount("none", "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0 ||
        ::mount(dir_.file("other").c_str(), path.c_str(), nullptr, MS_BIND, nullptr) != 0) {
      report = std::string("mount: ") + std::strerror(errno);
      return test::cannot_run_here;
    }
    host::process_perf_map map = open();
    report = map.problem;
    return map.fd ? 1 : 0;
  });
  if (result.status == test::cannot_run_here) GTEST_SKIP() << result.text;
  EXPECT_EQ(result.status, 0) << "the mounted file was opened";
  EXPECT_EQ(result.text, "is a mount of its own, not a file of the process's /tmp");
}

}  // namespace
}  // namespace arec::host
