#include "host/cgroup_fs.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdint>
#include <string>
#include <system_error>
#include <utility>
#include <vector>

using arec::host::perf_event_cgroup_mount;

namespace {

// A cgroup made for one test under the mount perf would use, removed (children first) at the
// end. Skips the test where there is no cgroup mount or no right to create one.
class scratch_cgroup {
 public:
  static std::optional<scratch_cgroup> make(std::string& why) {
    std::optional<std::string> mount = perf_event_cgroup_mount();
    if (!mount) {
      why = "no cgroup file system is mounted";
      return std::nullopt;
    }
    std::string name = "/arec-test-" + std::to_string(::getpid());
    if (::mkdir((*mount + name).c_str(), 0755) != 0) {
      why = "mkdir " + *mount + name + ": " + std::generic_category().message(errno);
      return std::nullopt;
    }
    return scratch_cgroup(*mount, name);
  }
  scratch_cgroup(scratch_cgroup&& other) noexcept
      : mount_(std::move(other.mount_)),
        name_(std::move(other.name_)),
        children_(std::move(other.children_)) {
    other.name_.clear();
  }
  ~scratch_cgroup() {
    if (name_.empty()) return;
    for (auto child = children_.rbegin(); child != children_.rend(); ++child)
      ::rmdir((path() + *child).c_str());
    ::rmdir(path().c_str());
  }
  void add_child(const std::string& relative) {
    ASSERT_EQ(::mkdir((path() + relative).c_str(), 0755), 0) << relative;
    children_.push_back(relative);
  }
  const std::string& mount() const { return mount_; }
  const std::string& name() const { return name_; }  // "/arec-test-PID"
  std::string path() const { return mount_ + name_; }

 private:
  scratch_cgroup(std::string mount, std::string name)
      : mount_(std::move(mount)), name_(std::move(name)) {}
  std::string mount_, name_;
  std::vector<std::string> children_;
};

std::uint64_t inode_of(const std::string& path) {
  struct stat status {};
  EXPECT_EQ(::stat(path.c_str(), &status), 0) << path;
  return status.st_ino;
}

}  // namespace

TEST(CgroupMount, PrefersAVersion1PerfEventMountElseTheLastCgroup2) {
  const char* hybrid =
      "tmpfs /sys/fs/cgroup tmpfs rw,relatime,mode=755 0 0\n"
      "cgroup /sys/fs/cgroup/cpu cgroup rw,relatime,cpu 0 0\n"
      "cgroup2 /sys/fs/cgroup/unified cgroup2 rw,relatime 0 0\n"
      "cgroup /sys/fs/cgroup/perf_event cgroup rw,relatime,perf_event 0 0\n";
  EXPECT_EQ(perf_event_cgroup_mount(hybrid), "/sys/fs/cgroup/perf_event");
  const char* version2 =
      "cgroup2 /first cgroup2 rw 0 0\n"
      "cgroup /sys/fs/cgroup/cpu cgroup rw,cpu,cpuacct 0 0\n"
      "cgroup2 /sys/fs/cgroup cgroup2 rw,nsdelegate 0 0";
  EXPECT_EQ(perf_event_cgroup_mount(version2), "/sys/fs/cgroup");
  EXPECT_FALSE(perf_event_cgroup_mount("proc /proc proc rw 0 0\n"));
  EXPECT_FALSE(perf_event_cgroup_mount(""));
}

// The walk names every cgroup relative to the mount, parents first, with the kernel's cgroup
// id, which on cgroupfs is also the directory's inode number.
TEST(CgroupWalk, NamesEveryCgroupParentFirstWithItsId) {
  std::string why;
  std::optional<scratch_cgroup> scratch = scratch_cgroup::make(why);
  if (!scratch) GTEST_SKIP() << why;
  scratch->add_child("/inner");
  scratch->add_child("/inner/deeper");
  std::vector<std::pair<std::uint64_t, std::string>> seen;
  arec::host::walk_cgroups(scratch->mount(), [&](std::uint64_t id, std::string_view path) {
    seen.emplace_back(id, std::string(path));
  });
  ASSERT_FALSE(seen.empty());
  EXPECT_EQ(seen.front().second, "/");
  EXPECT_EQ(seen.front().first, inode_of(scratch->mount()));
  std::vector<std::string> ours;
  for (const auto& [id, path] : seen) {
    if (path != scratch->name() && !path.starts_with(scratch->name() + "/")) continue;
    ours.push_back(path);
    EXPECT_EQ(id, inode_of(scratch->mount() + path)) << path;
    EXPECT_EQ(id, arec::host::cgroup_id((scratch->mount() + path).c_str())) << path;
  }
  EXPECT_EQ(ours, (std::vector<std::string>{scratch->name(), scratch->name() + "/inner",
                                            scratch->name() + "/inner/deeper"}));
}

TEST(CgroupOpen, NamesThePathPerfPrintsWhenTheCgroupIsMissing) {
  try {
    arec::host::open_cgroup("/nonexistent-mount", "/missing");
    FAIL() << "opened a missing cgroup";
  } catch (const std::system_error& error) {
    EXPECT_NE(std::string(error.what()).find("/nonexistent-mount//missing"), std::string::npos)
        << error.what();
  }
}
