#include "io/owned_files.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>

#include "base/system_error.hpp"
#include "io/file_copy.hpp"
#include "io/output_path.hpp"
#include "io/published_file.hpp"

namespace arec::io {
namespace {

std::string parent_of(const std::string& path) {
  std::size_t slash = path.find_last_not_of('/');
  slash = slash == std::string::npos ? std::string::npos : path.rfind('/', slash);
  if (slash == std::string::npos) return {};
  return slash == 0 ? "/" : path.substr(0, slash);
}

}  // namespace

std::string octal_mode(mode_t mode) {
  char text[8];
  std::snprintf(text, sizeof text, "%04o", static_cast<unsigned>(mode & 07777));
  return text;
}

std::optional<bounded_file> read_bounded_regular_file(int dir_fd, const std::string& path,
                                                      std::size_t max_bytes, int extra_flags) {
  int raw =
      ::openat(dir_fd, path.c_str(), O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC | extra_flags);
  if (raw < 0 && errno == ENOENT) return std::nullopt;
  if (raw < 0 && errno == ELOOP && (extra_flags & O_NOFOLLOW) != 0) {
    bounded_file file;
    file.problem = "is a symbolic link";
    return file;
  }
  unique_fd fd{base::check_syscall(raw, "open", path)};
  return read_bounded_open_file(fd.get(), path, max_bytes);
}

bounded_file read_bounded_open_file(int fd, const std::string& name, std::size_t max_bytes) {
  bounded_file file;
  base::check_syscall(::fstat(fd, &file.status), "fstat", name);
  if (!S_ISREG(file.status.st_mode)) {
    file.problem = "is not a regular file";
    return file;
  }
  // Sized from st_size (the file may still grow: a perf map being written), never beyond one
  // byte more than allowed, which tells a file at the bound from one over it.
  std::size_t limit = max_bytes + 1;
  file.text.resize(std::min(limit, static_cast<std::size_t>(file.status.st_size) + 4096));
  std::size_t got = 0;
  for (;;) {
    if (got == file.text.size()) {
      if (got == limit) break;
      file.text.resize(std::min(limit, got * 2));
    }
    ssize_t n = base::retry_on_eintr([&] {
      return ::pread(fd, file.text.data() + got, file.text.size() - got, static_cast<off_t>(got));
    });
    base::check_syscall(n, "read", name);
    if (n == 0) break;
    got += static_cast<std::size_t>(n);
  }
  if (got > max_bytes) {
    file.text.clear();
    file.problem = "holds more than " + std::to_string(max_bytes) + " bytes";
    return file;
  }
  file.text.resize(got);
  return file;
}

std::string ownership_problem(const struct stat& status, bool root_may_own, bool private_read) {
  uid_t me = ::geteuid();
  if (status.st_uid != me && !(root_may_own && status.st_uid == 0)) {
    return "is owned by uid " + std::to_string(status.st_uid) + ", not by uid " +
           std::to_string(me) + " (the user running arec)";
  }
  mode_t others = private_read ? 077 : 022;
  if ((status.st_mode & others) != 0) {
    return std::string("is ") + (private_read ? "readable or writable" : "writable") +
           " by group or others (mode " + octal_mode(status.st_mode) + ")";
  }
  return {};
}

private_directory open_private_directory(const std::string& path) {
  private_directory result;
  if (std::string parent = parent_of(path); !parent.empty()) make_directories(parent);
  if (::mkdir(path.c_str(), 0700) == 0) {
    result.created = true;
  } else if (errno != EEXIST) {
    base::throw_errno("mkdir", path);
  }
  int raw = ::open(path.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (raw < 0 && (errno == ELOOP || errno == ENOTDIR)) {
    struct stat link {};
    bool is_link = ::lstat(path.c_str(), &link) == 0 && S_ISLNK(link.st_mode);
    result.problem = is_link ? "is a symbolic link" : "is not a directory";
    return result;
  }
  unique_fd fd{base::check_syscall(raw, "open", path)};
  struct stat status {};
  base::check_syscall(::fstat(fd.get(), &status), "fstat", path);
  result.problem = ownership_problem(status, false, false);
  if (result.problem.empty()) result.fd = std::move(fd);
  return result;
}

void write_file_atomically_at(int dir_fd, const std::string& shown_dir, std::string_view name,
                              std::span<const std::byte> bytes) {
  std::string shown = shown_dir + "/" + std::string(name);
  published_file file(dir_fd, std::string(name), shown, publish_policy::replace_durably);
  write_all(file.fd(), bytes, shown);
  file.commit();
}

bool remove_file_at(int dir_fd, const std::string& name) {
  if (::unlinkat(dir_fd, name.c_str(), 0) == 0) return true;
  if (errno == ENOENT) return false;
  base::throw_errno("unlink", name);
}

}  // namespace arec::io
