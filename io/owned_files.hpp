// owned_files: files and a directory that arec trusts only when the running user owns them and
// no one else may write them, as ssh trusts a key file: a bounded read of a small regular file
// (a token), a private directory opened without following a link (a spool), and files written,
// read and removed relative to that directory's fd, so a path swapped under us is never used.
#pragma once

#include <sys/stat.h>
#include <sys/types.h>

#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "io/unique_fd.hpp"

namespace arec::io {

// A file read whole, or why it was not: "is not a regular file", "holds more than N bytes".
struct bounded_file {
  std::string text;
  struct stat status {};  // of the open file (owner, mode)
  std::string problem;    // empty when `text` holds the file
};

// Reads `path` (relative to `dir_fd`) when it is a regular file of at most `max_bytes`; a FIFO
// or device is never read (opened O_NONBLOCK, then refused), so /dev/zero costs nothing.
// `extra_flags` adds open flags (O_NOFOLLOW). nullopt when it does not exist; other failures
// throw std::system_error naming the path.
std::optional<bounded_file> read_bounded_regular_file(int dir_fd, const std::string& path,
                                                      std::size_t max_bytes, int extra_flags = 0);

// The same for a file already open as `fd` (read from offset 0 with pread; `name` is for
// messages). Memory grows with what is read, not with the bound.
bounded_file read_bounded_open_file(int fd, const std::string& name, std::size_t max_bytes);

// `mode`'s permission bits as chmod takes them ("0644"), for messages.
std::string octal_mode(mode_t mode);

// What in `status` makes a file or directory untrustworthy for the running user: owned by
// another user than it (or root, when `root_may_own`), or writable by group or others; with
// `private_read`, also readable by them. Empty when it is trusted.
std::string ownership_problem(const struct stat& status, bool root_may_own, bool private_read);

// A directory only the running user writes, open as an fd.
struct private_directory {
  unique_fd fd;
  bool created = false;  // this call made it
  std::string problem;   // when not empty, fd is empty: "is a symbolic link", "is owned by ..."
};

// Makes `path` (mode 0700, its parents as io::make_directories does) unless it exists, then opens
// it with O_DIRECTORY | O_NOFOLLOW and checks owner and mode on the open fd. Refusals come back
// in `problem`; failures of the calls throw std::system_error naming the path.
private_directory open_private_directory(const std::string& path);

// Makes `name` in the directory `dir_fd` hold `bytes` (mode 0600), all or nothing: published
// with publish_policy::replace_durably (io/published_file). A failure leaves no temporary file
// and throws std::system_error naming `shown_dir`/name.
void write_file_atomically_at(int dir_fd, const std::string& shown_dir, std::string_view name,
                              std::span<const std::byte> bytes);

// Removes `name` from directory `dir_fd`; false when it was not there. Throws for other failures.
bool remove_file_at(int dir_fd, const std::string& name);

}  // namespace arec::io
