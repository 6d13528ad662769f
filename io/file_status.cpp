#include "io/file_status.hpp"

#include <cerrno>

#include "base/system_error.hpp"

namespace arec::io {

std::optional<struct stat> status_at(int dir_fd, const std::string& name, bool follow_link) {
  struct stat status {};
  if (::fstatat(dir_fd, name.c_str(), &status, follow_link ? 0 : AT_SYMLINK_NOFOLLOW) == 0)
    return status;
  if (errno == ENOENT || errno == ENOTDIR) return std::nullopt;
  base::throw_errno("stat", name);
}

struct stat status_of(const std::string& path) {
  struct stat status {};
  base::check_syscall(::stat(path.c_str(), &status), "stat", path);
  return status;
}

bool same_file(const std::string& a, const std::string& b) {
  std::optional<struct stat> first = status_at(AT_FDCWD, a, true);
  std::optional<struct stat> second = status_at(AT_FDCWD, b, true);
  return first && second && first->st_dev == second->st_dev && first->st_ino == second->st_ino;
}

}  // namespace arec::io
