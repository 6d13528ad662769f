// small_file: one /proc or sysfs pseudo-file read with pread into a buffer the caller owns, and
// line_reader, which walks such a file line by line in pieces. A task that exits under us is an
// expected outcome (a value), not an error.
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <optional>
#include <span>
#include <string_view>

#include "io/unique_fd.hpp"

namespace arec::io {

// Why a pseudo-file could not be opened or read, when that is an expected outcome.
enum class file_state {
  open,
  gone,    // ENOENT or ESRCH: the task (or the file) no longer exists
  denied,  // EACCES or EPERM: e.g. /proc/<pid>/maps of a task we may not ptrace
};

class small_file {
 public:
  // Opens `path` read-only relative to `dir_fd` (AT_FDCWD for the working directory).
  // Never throws for the expected outcomes: state() tells gone or denied apart from open.
  // Throws std::system_error ("open PATH: ...") for any other failure.
  static small_file open_at(int dir_fd, const char* path);

  // True when the file is open.
  explicit operator bool() const noexcept { return state_ == file_state::open; }
  file_state state() const noexcept { return state_; }
  int fd() const noexcept { return fd_.get(); }

  // Reads up to buffer.size() bytes at `offset`; fewer only at end of file. Returns the byte
  // count, or nullopt when the task vanished while reading (ESRCH/ENOENT). The file must be open.
  // Throws std::system_error for other failures.
  std::optional<std::size_t> read_at(std::span<char> buffer, off_t offset);

  // Reads from offset 0 until the buffer is full or the file ends; returns the text read, or
  // nullopt when the task vanished. Text that fills the whole buffer may be cut short.
  std::optional<std::string_view> read_all(std::span<char> buffer);

 private:
  small_file(unique_fd fd, file_state state) noexcept : fd_(std::move(fd)), state_(state) {}
  unique_fd fd_;
  file_state state_;
};

// Opens `path` relative to `dir_fd` and reads it whole into `buffer` (see read_all). Returns
// nullopt when it is gone or denied.
std::optional<std::string_view> read_small_file(int dir_fd, const char* path,
                                                std::span<char> buffer);

// The whole text of a file of any size (a sysfs or tracefs pseudo-file, whose st_size is 0, is
// read to its end), or nullopt when it does not exist (ENOENT). Other failures throw
// std::system_error naming the path.
std::optional<std::string> read_text_if_exists(const std::string& path);

// One line of a file read by line_reader, without its '\n'.
struct text_line {
  std::string_view text;
  bool truncated = false;  // the line was longer than the buffer; `text` is its beginning
};

// Walks an open file line by line, reading pieces of buffer.size() bytes with pread, so a file
// of any size passes through a fixed buffer and no line is lost at a piece boundary.
class line_reader {
 public:
  // `buffer` must outlive the reader; lines longer than it come back truncated.
  line_reader(small_file& file, std::span<char> buffer) noexcept : file_(file), buffer_(buffer) {}

  // The next line (a last line without '\n' included), or nullopt at end of file or when the
  // task vanished (then gone() is true). The returned view stays valid until the next call.
  std::optional<text_line> next();

  bool gone() const noexcept { return gone_; }

 private:
  bool fill();  // reads more after the kept bytes; false at end of file

  small_file& file_;
  std::span<char> buffer_;
  std::size_t begin_ = 0;  // first unconsumed byte
  std::size_t end_ = 0;    // one past the last valid byte
  off_t offset_ = 0;       // file offset of the next read
  bool eof_ = false;
  bool gone_ = false;
  bool skipping_ = false;  // discarding the rest of a line that was returned truncated
};

}  // namespace arec::io
