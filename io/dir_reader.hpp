// dir_reader: lists a directory with getdents64 into a fixed buffer it owns, so walking /proc
// allocates nothing per entry (modelled on perf's lib/api/io_dir.h; no opendir, no filesystem).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

#include "io/unique_fd.hpp"

namespace arec::io {

struct dir_entry {
  std::string_view name;  // NUL-terminated in the reader's buffer: name.data() is a C string
  unsigned char type = 0;  // DT_* from <dirent.h>; DT_UNKNOWN on file systems that omit it
  std::uint64_t inode = 0;
};

// Opens the directory `path` (relative to `dir_fd`) for a dir_reader; an empty fd when it is
// not there or hidden from us (ENOENT, ESRCH: a /proc task that exited; EACCES, EPERM). Other
// failures throw std::system_error naming the path.
unique_fd open_directory_if_present(int dir_fd, const char* path);

class dir_reader {
 public:
  // getdents64 fills this many bytes per call; one entry needs at most 280.
  static constexpr std::size_t buffer_size = 4096;

  // Takes ownership of `directory`, an fd opened with O_DIRECTORY.
  explicit dir_reader(unique_fd directory) noexcept : fd_(std::move(directory)) {}
  dir_reader(const dir_reader&) = delete;
  dir_reader& operator=(const dir_reader&) = delete;

  // The next entry other than "." and "..", or nullopt at the end. The entry's name stays valid
  // until the next call. A directory removed while listing (a /proc task that exited, ENOENT)
  // simply ends; other getdents64 failures throw std::system_error.
  std::optional<dir_entry> next();

  // The directory fd, for openat() relative to it.
  int fd() const noexcept { return fd_.get(); }

 private:
  unique_fd fd_;
  std::size_t used_ = 0;       // valid bytes in buffer_
  std::size_t position_ = 0;   // offset of the next unread entry
  bool end_ = false;
  alignas(8) std::byte buffer_[buffer_size];
};

}  // namespace arec::io
