#include "io/small_file.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cstring>

#include "base/system_error.hpp"

namespace arec::io {
namespace {

bool is_gone(int err) {
  return err == ENOENT || err == ESRCH;
}

}  // namespace

small_file small_file::open_at(int dir_fd, const char* path) {
  int fd = base::retry_on_eintr([&] { return ::openat(dir_fd, path, O_RDONLY | O_CLOEXEC); });
  if (fd >= 0) return small_file{unique_fd{fd}, file_state::open};
  if (is_gone(errno)) return small_file{unique_fd{}, file_state::gone};
  if (errno == EACCES || errno == EPERM) return small_file{unique_fd{}, file_state::denied};
  base::throw_errno("open", path);
}

std::optional<std::size_t> small_file::read_at(std::span<char> buffer, off_t offset) {
  ssize_t n = base::retry_on_eintr(
      [&] { return ::pread(fd_.get(), buffer.data(), buffer.size(), offset); });
  if (n >= 0) return static_cast<std::size_t>(n);
  if (is_gone(errno)) return std::nullopt;
  base::throw_errno("pread", "/proc file");
}

std::optional<std::string_view> small_file::read_all(std::span<char> buffer) {
  std::size_t size = 0;
  while (size < buffer.size()) {
    auto n = read_at(buffer.subspan(size), static_cast<off_t>(size));
    if (!n) return std::nullopt;
    if (*n == 0) break;
    size += *n;
  }
  return std::string_view{buffer.data(), size};
}

std::optional<std::string_view> read_small_file(int dir_fd, const char* path,
                                                std::span<char> buffer) {
  small_file file = small_file::open_at(dir_fd, path);
  if (!file) return std::nullopt;
  return file.read_all(buffer);
}

std::optional<std::string> read_text_if_exists(const std::string& path) {
  int raw = base::retry_on_eintr([&] { return ::open(path.c_str(), O_RDONLY | O_CLOEXEC); });
  if (raw < 0) {
    if (errno == ENOENT) return std::nullopt;
    base::throw_errno("open", path);
  }
  unique_fd fd{raw};
  std::string text;
  char buffer[4096];
  for (;;) {
    ssize_t n = base::retry_on_eintr([&] { return ::read(fd.get(), buffer, sizeof buffer); });
    if (n < 0) base::throw_errno("read", path);
    if (n == 0) return text;
    text.append(buffer, static_cast<std::size_t>(n));
  }
}

bool line_reader::fill() {
  if (eof_) return false;
  if (begin_ > 0) {  // keep the unconsumed part of a line at the front
    std::memmove(buffer_.data(), buffer_.data() + begin_, end_ - begin_);
    end_ -= begin_;
    begin_ = 0;
  }
  auto n = file_.read_at(buffer_.subspan(end_), offset_);
  if (!n) {
    gone_ = true;
    eof_ = true;
    return false;
  }
  if (*n == 0) {
    eof_ = true;
    return false;
  }
  end_ += *n;
  offset_ += static_cast<off_t>(*n);
  return true;
}

std::optional<text_line> line_reader::next() {
  for (;;) {
    std::string_view pending{buffer_.data() + begin_, end_ - begin_};
    auto newline = pending.find('\n');
    if (skipping_) {
      if (newline == std::string_view::npos) {
        begin_ = end_;
        if (!fill()) return std::nullopt;
        continue;
      }
      begin_ += newline + 1;
      skipping_ = false;
      continue;
    }
    if (newline != std::string_view::npos) {
      begin_ += newline + 1;
      return text_line{pending.substr(0, newline), false};
    }
    if (begin_ == 0 && end_ == buffer_.size()) {  // a line longer than the whole buffer
      begin_ = end_;
      skipping_ = true;
      return text_line{pending, true};
    }
    if (!fill()) {
      // fill() may have moved the pending bytes to the front: look at them afresh.
      std::string_view last{buffer_.data() + begin_, end_ - begin_};
      if (gone_ || last.empty()) return std::nullopt;
      begin_ = end_;
      return text_line{last, false};
    }
  }
}

}  // namespace arec::io
