#include "io/published_file.hpp"

#include <stdio.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <optional>
#include <string>
#include <system_error>
#include <utility>

#include "base/system_error.hpp"

namespace arec::io {
namespace {

constexpr int create_flags = O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC;

// "dir/" and "leaf" of a name relative to a directory fd ("" and the name without a slash).
std::pair<std::string, std::string> split(const std::string& name) {
  std::size_t slash = name.rfind('/');
  if (slash == std::string::npos) return {"", name};
  return {name.substr(0, slash + 1), name.substr(slash + 1)};
}

std::string random_suffix() {
  constexpr std::string_view letters = "abcdefghijklmnopqrstuvwxyz0123456789";
  unsigned char bytes[6];
  std::size_t got = 0;
  while (got < sizeof bytes) {
    ssize_t n = ::getrandom(bytes + got, sizeof bytes - got, 0);
    if (n < 0 && errno != EINTR) base::throw_errno("getrandom");
    if (n > 0) got += static_cast<std::size_t>(n);
  }
  std::string suffix;
  for (unsigned char byte : bytes) suffix += letters[byte % letters.size()];
  return suffix;
}

// Creates ".LEAF.arec-XXXXXX.tmp" next to `name`: hidden, and a name no other publisher has,
// so two writers of one destination never write or remove each other's file.
unique_fd create_temporary(int dir_fd, const std::string& name, const std::string& shown,
                           mode_t mode, std::string& temporary) {
  auto [dir, leaf] = split(name);
  for (int attempt = 0;; ++attempt) {
    temporary = dir + "." + leaf + ".arec-" + random_suffix() + ".tmp";
    int fd = ::openat(dir_fd, temporary.c_str(), create_flags, mode);
    if (fd >= 0) return unique_fd(fd);
    if (errno != EEXIST || attempt == 100) base::throw_errno("create", shown);
  }
}

// The unnamed file in the destination's directory, or an empty fd where the file system has
// none (older kernels, NFS, FUSE).
unique_fd create_unnamed(int dir_fd, const std::string& name, const std::string& shown,
                         mode_t mode) {
  std::string dir = split(name).first;
  int fd = ::openat(dir_fd, dir.empty() ? "." : dir.c_str(), O_RDWR | O_TMPFILE | O_CLOEXEC, mode);
  if (fd >= 0) return unique_fd(fd);
  if (errno != EOPNOTSUPP && errno != EISDIR && errno != EINVAL) base::throw_errno("create", shown);
  return {};
}

// Links the open file `fd` as `name`, failing when anything is there. Through /proc, as
// linkat(AT_EMPTY_PATH) would need CAP_DAC_READ_SEARCH.
int link_open_file(int fd, int dir_fd, const std::string& name) {
  std::string self = "/proc/self/fd/" + std::to_string(fd);
  return ::linkat(AT_FDCWD, self.c_str(), dir_fd, name.c_str(), AT_SYMLINK_FOLLOW);
}

void sync_directory_of(int dir_fd, const std::string& name, const std::string& shown) {
  std::string dir = split(name).first;
  if (dir.empty() && dir_fd != AT_FDCWD) {
    base::check_syscall(::fsync(dir_fd), "fsync", "the directory of " + shown);
    return;
  }
  unique_fd opened = unique_fd::open_at(dir_fd, dir.empty() ? "." : dir.c_str(),
                                        O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  base::check_syscall(::fsync(opened.get()), "fsync", "the directory of " + shown);
}

// A character device or FIFO at the destination (-o /dev/null) is opened to be written into,
// as perf writes into it: a file renamed or linked over it would replace the host's device
// with a regular file. A block device or socket there is refused. None: nothing special there.
std::optional<unique_fd> open_special(int dir_fd, const std::string& name,
                                      const std::string& shown) {
  struct stat status {};
  if (::fstatat(dir_fd, name.c_str(), &status, AT_SYMLINK_NOFOLLOW) != 0) return std::nullopt;
  if (S_ISCHR(status.st_mode) || S_ISFIFO(status.st_mode)) {
    int flags = (S_ISFIFO(status.st_mode) ? O_WRONLY : O_RDWR) | O_CLOEXEC | O_NOFOLLOW;
    return unique_fd{base::check_syscall(::openat(dir_fd, name.c_str(), flags), "open", shown)};
  }
  if (S_ISBLK(status.st_mode) || S_ISSOCK(status.st_mode))
    throw std::system_error(EEXIST, std::generic_category(),
                            "create " + shown + ": a " +
                                (S_ISBLK(status.st_mode) ? "block device" : "socket") +
                                " is there, and arec writes neither over it nor into it");
  return std::nullopt;
}

}  // namespace

bool is_publish_temporary(std::string_view name) {
  return name.starts_with('.') && name.ends_with(".tmp");
}

published_file::published_file(const std::string& path, publish_policy policy, mode_t mode)
    : published_file(AT_FDCWD, path, path, policy, mode) {}

published_file::published_file(int dir_fd, std::string name, std::string shown,
                               publish_policy policy, mode_t mode)
    : dir_fd_(dir_fd), name_(std::move(name)), shown_(std::move(shown)), policy_(policy) {
  if (std::optional<unique_fd> special = open_special(dir_fd_, name_, shown_)) {
    fd_ = std::move(*special);
    committed_ = true;  // written in place: it has its name, and nothing is to be removed
    return;
  }
  if (policy_ == publish_policy::new_only) fd_ = create_unnamed(dir_fd_, name_, shown_, mode);
  if (!fd_) fd_ = create_temporary(dir_fd_, name_, shown_, mode, temporary_);
}

published_file::published_file(published_file&& other) noexcept
    : dir_fd_(other.dir_fd_),
      name_(std::move(other.name_)),
      shown_(std::move(other.shown_)),
      temporary_(std::exchange(other.temporary_, {})),
      policy_(other.policy_),
      fd_(std::move(other.fd_)),
      committed_(other.committed_) {}

published_file& published_file::operator=(published_file&& other) noexcept {
  if (this == &other) return *this;
  remove_temporary();
  dir_fd_ = other.dir_fd_;
  name_ = std::move(other.name_);
  shown_ = std::move(other.shown_);
  temporary_ = std::exchange(other.temporary_, {});
  policy_ = other.policy_;
  fd_ = std::move(other.fd_);
  committed_ = other.committed_;
  return *this;
}

published_file::~published_file() {
  remove_temporary();
}

void published_file::remove_temporary() noexcept {
  if (!committed_ && !temporary_.empty()) ::unlinkat(dir_fd_, temporary_.c_str(), 0);
  temporary_.clear();
}

void published_file::commit() {
  if (committed_) return;
  if (policy_ == publish_policy::new_only) {
    commit_new();
  } else {
    commit_replacing();
  }
}

// From here on the temporary name is gone: the destructor must not remove it.
void published_file::mark_named() noexcept {
  committed_ = true;
  temporary_.clear();
}

void published_file::commit_new() {
  if (temporary_.empty()) {
    base::check_syscall(link_open_file(fd_.get(), dir_fd_, name_), "create", shown_);
    return mark_named();
  }
  if (::renameat2(dir_fd_, temporary_.c_str(), dir_fd_, name_.c_str(), RENAME_NOREPLACE) == 0)
    return mark_named();
  if (errno != EINVAL) base::throw_errno("create", shown_);
  // A file system without RENAME_NOREPLACE: a hard link fails on an existing name as well.
  base::check_syscall(::linkat(dir_fd_, temporary_.c_str(), dir_fd_, name_.c_str(), 0), "create",
                      shown_);
  ::unlinkat(dir_fd_, temporary_.c_str(), 0);
  mark_named();
}

void published_file::commit_replacing() {
  bool durably = policy_ == publish_policy::replace_durably;
  if (durably) base::check_syscall(::fsync(fd_.get()), "fsync", shown_);
  base::check_syscall(::renameat(dir_fd_, temporary_.c_str(), dir_fd_, name_.c_str()), "rename",
                      shown_);
  mark_named();
  // The rename is durable only once the directory is.
  if (durably) sync_directory_of(dir_fd_, name_, shown_);
}

bool published_file::link_existing(int file, int dir_fd, const std::string& name,
                                   const std::string& shown) {
  if (link_open_file(file, dir_fd, name) == 0) return true;
  if (errno == EEXIST) base::throw_errno("create", shown);
  return false;
}

bool published_file::link_symbolically(const std::string& target, int dir_fd,
                                       const std::string& name, const std::string& shown) {
  if (::symlinkat(target.c_str(), dir_fd, name.c_str()) == 0) return true;
  if (errno != EEXIST) base::throw_errno("symlink", shown);
  return false;
}

}  // namespace arec::io
