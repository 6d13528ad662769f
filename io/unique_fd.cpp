#include "io/unique_fd.hpp"

#include "base/system_error.hpp"

namespace arec::io {

unique_fd unique_fd::open_at(int dir_fd, const char* path, int flags, mode_t mode) {
  int fd = base::retry_on_eintr([&] { return ::openat(dir_fd, path, flags | O_CLOEXEC, mode); });
  if (fd < 0) base::throw_errno("open", path);
  return unique_fd{fd};
}

}  // namespace arec::io
