// unique_fd: the move-only owner of one file descriptor; the only place arec calls close().
#pragma once

#include <fcntl.h>
#include <unistd.h>

#include <string_view>
#include <utility>

namespace arec::io {

class unique_fd {
 public:
  unique_fd() = default;
  explicit unique_fd(int fd) noexcept : fd_(fd) {}
  unique_fd(unique_fd&& other) noexcept : fd_(other.release()) {}
  unique_fd& operator=(unique_fd&& other) noexcept {
    reset(other.release());
    return *this;
  }
  unique_fd(const unique_fd&) = delete;
  unique_fd& operator=(const unique_fd&) = delete;
  ~unique_fd() { reset(); }

  // Opens `path` relative to `dir_fd` (AT_FDCWD for the working directory); throws on failure.
  static unique_fd open_at(int dir_fd, const char* path, int flags, mode_t mode = 0);
  static unique_fd open(const char* path, int flags, mode_t mode = 0) {
    return open_at(AT_FDCWD, path, flags, mode);
  }

  int get() const noexcept { return fd_; }
  explicit operator bool() const noexcept { return fd_ >= 0; }
  int release() noexcept { return std::exchange(fd_, -1); }
  void reset(int fd = -1) noexcept {
    if (fd_ >= 0) ::close(fd_);
    fd_ = fd;
  }

 private:
  int fd_ = -1;
};

}  // namespace arec::io
