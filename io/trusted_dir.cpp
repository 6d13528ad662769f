#include "io/trusted_dir.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>

#include "base/system_error.hpp"
#include "io/file_copy.hpp"
#include "io/owned_files.hpp"

namespace arec::io {
namespace {

void check_trusted(int fd, const std::string& path) {
  struct stat status {};
  base::check_syscall(::fstat(fd, &status), "fstat", path);
  if (std::string why = ownership_problem(status, true, false); !why.empty())
    throw untrusted_directory(path + " " + why +
                              ": arec does not write into it (chown it, chmod go-w it, or choose "
                              "another directory)");
}

// Opens `name` below `parent`, which must be a real directory (not a symlink).
unique_fd open_component(int parent, const std::string& name, const std::string& path,
                         mode_t mode) {
  if (name == "." || name == "..")
    throw untrusted_directory(path + ": a path with '" + name + "' in it is not followed");
  if (::mkdirat(parent, name.c_str(), mode) == -1 && errno != EEXIST)
    base::throw_errno("mkdir", path);
  int fd = ::openat(parent, name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd == -1 && (errno == ELOOP || errno == ENOTDIR))
    throw untrusted_directory(path + " is not a directory (a symlink?): arec does not follow it");
  unique_fd opened{base::check_syscall(fd, "open", path)};
  check_trusted(opened.get(), path);
  return opened;
}

}  // namespace

unique_fd open_trusted_root(const std::string& path, mode_t mode) {
  make_directories(path, mode);
  unique_fd root = unique_fd::open(path.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  check_trusted(root.get(), path);
  return root;
}

unique_fd open_below(int parent, std::string_view relative, const std::string& shown, mode_t mode) {
  unique_fd current;
  std::string path = shown;
  while (!relative.empty()) {
    std::size_t slash = relative.find('/');
    std::string name{relative.substr(0, slash)};
    relative = slash == std::string_view::npos ? std::string_view{} : relative.substr(slash + 1);
    if (name.empty()) continue;  // "a//b"
    path += "/" + name;
    current = open_component(current ? current.get() : parent, name, path, mode);
  }
  if (!current) current = unique_fd::open_at(parent, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  return current;
}

}  // namespace arec::io
