#include "io/dir_reader.hpp"

#include <dirent.h>

#include <cstring>

#include "base/system_error.hpp"

namespace arec::io {

unique_fd open_directory_if_present(int dir_fd, const char* path) {
  int fd = base::retry_on_eintr(
      [&] { return ::openat(dir_fd, path, O_RDONLY | O_DIRECTORY | O_CLOEXEC); });
  if (fd < 0 && errno != ENOENT && errno != ESRCH && errno != EACCES && errno != EPERM)
    base::throw_errno("open", path);
  return unique_fd{fd};
}

std::optional<dir_entry> dir_reader::next() {
  for (;;) {
    if (position_ >= used_) {
      if (end_) return std::nullopt;
      ssize_t n =
          base::retry_on_eintr([&] { return ::getdents64(fd_.get(), buffer_, buffer_size); });
      if (n < 0) {
        // A /proc/<pid>/task directory whose process exited reports ENOENT: that is its end.
        if (errno == ENOENT)
          n = 0;
        else
          base::throw_errno("getdents64", "directory");
      }
      if (n == 0) {
        end_ = true;
        return std::nullopt;
      }
      used_ = static_cast<std::size_t>(n);
      position_ = 0;
    }
    // linux_dirent64: u64 d_ino; s64 d_off; u16 d_reclen; u8 d_type; char d_name[].
    const std::byte* record = buffer_ + position_;
    std::uint64_t inode;
    std::uint16_t length;
    std::memcpy(&inode, record, sizeof inode);
    std::memcpy(&length, record + 16, sizeof length);
    auto type = static_cast<unsigned char>(record[18]);
    const char* name = reinterpret_cast<const char*>(record + 19);
    position_ += length;
    std::string_view view{name};
    if (view == "." || view == "..") continue;
    return dir_entry{view, type, inode};
  }
}

}  // namespace arec::io
