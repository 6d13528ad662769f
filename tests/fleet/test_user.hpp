// test_user: a second, unprivileged user that a test creates (useradd, a name of its own) and
// removes again (userdel -r) when it goes, even when the test fails: the host stays as it was.
#pragma once

#include <pwd.h>
#include <sys/types.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <stdexcept>
#include <string>

namespace arec::test {

class test_user {
 public:
  test_user() {
    static std::atomic<int> made{0};
    name_ = "arectest" + std::to_string(::getpid() % 100000) + "x" + std::to_string(made++);
    if (std::system(("useradd -m " + name_ + " >/dev/null 2>&1").c_str()) != 0)
      throw std::runtime_error("useradd " + name_ + " failed");
    const passwd* entry = ::getpwnam(name_.c_str());
    if (entry == nullptr) {
      remove();
      throw std::runtime_error("getpwnam " + name_ + ": no such user after useradd");
    }
    uid_ = entry->pw_uid;
    gid_ = entry->pw_gid;
  }
  ~test_user() { remove(); }
  test_user(const test_user&) = delete;
  test_user& operator=(const test_user&) = delete;

  const std::string& name() const noexcept { return name_; }
  uid_t uid() const noexcept { return uid_; }
  gid_t gid() const noexcept { return gid_; }

 private:
  void remove() { (void)std::system(("userdel -r " + name_ + " >/dev/null 2>&1").c_str()); }
  std::string name_;
  uid_t uid_ = 0;
  gid_t gid_ = 0;
};

}  // namespace arec::test
