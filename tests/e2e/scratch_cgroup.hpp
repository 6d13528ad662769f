// scratch_cgroup: a cgroup one test makes under the mount perf uses (host::perf_event_cgroup_mount)
// and removes when it ends, with what it made below it: the host keeps no cgroup of the tests.
#pragma once

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <fstream>
#include <optional>
#include <string>
#include <system_error>
#include <vector>

#include "host/cgroup_fs.hpp"

namespace arec::e2e {

// A cgroup made for one test under the mount perf uses, removed when the test ends (after the
// spinners in it, which must be declared after it). nullopt, with the reason, when impossible.
class scratch_cgroup {
 public:
  // `name` below the mount's root, "/arec-e2e-PID" by default.
  static std::optional<scratch_cgroup> make(std::string& why, std::string name = {}) {
    std::optional<std::string> mount = host::perf_event_cgroup_mount();
    if (!mount) {
      why = "no cgroup file system is mounted";
      return std::nullopt;
    }
    if (name.empty()) name = "/arec-e2e-" + std::to_string(::getpid());
    if (::mkdir((*mount + name).c_str(), 0755) != 0) {
      why = "mkdir " + *mount + name + ": " + std::generic_category().message(errno);
      return std::nullopt;
    }
    return scratch_cgroup(*mount + name, name);
  }
  scratch_cgroup(scratch_cgroup&& other) noexcept
      : path_(std::move(other.path_)),
        name_(std::move(other.name_)),
        children_(std::move(other.children_)) {
    other.path_.clear();
  }
  ~scratch_cgroup() {
    if (path_.empty()) return;
    for (auto child = children_.rbegin(); child != children_.rend(); ++child)
      ::rmdir((path_ + *child).c_str());
    ::rmdir(path_.c_str());
  }
  // A cgroup below this one, `relative` like "/inner"; removed with it.
  void add_child(const std::string& relative) {
    ASSERT_EQ(::mkdir((path_ + relative).c_str(), 0755), 0) << path_ << relative;
    children_.push_back(relative);
  }
  // Moves `pid` (all its threads) into this cgroup.
  void adopt(int pid) const {
    std::ofstream procs(path_ + "/cgroup.procs");
    procs << pid << std::flush;
    ASSERT_TRUE(procs.good()) << "could not move pid " << pid << " into " << path_;
  }
  const std::string& name() const { return name_; }  // as -G takes it: "/arec-e2e-PID"
  const std::string& path() const { return path_; }  // where it is mounted

 private:
  scratch_cgroup(std::string path, std::string name)
      : path_(std::move(path)), name_(std::move(name)) {}
  std::string path_, name_;
  std::vector<std::string> children_;
};

}  // namespace arec::e2e
