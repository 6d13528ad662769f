#include "base/terminal_line.hpp"

#include <sys/ioctl.h>
#include <unistd.h>

#include <cinttypes>
#include <cstdio>
#include <iterator>

namespace arec::base {

std::string format_bytes(std::uint64_t bytes) {
  char text[32];
  constexpr const char* units[] = {"kB", "MB", "GB", "TB"};
  if (bytes < 1000) {
    std::snprintf(text, sizeof text, "%" PRIu64 " B", bytes);
    return text;
  }
  double value = static_cast<double>(bytes) / 1000;
  std::size_t unit = 0;
  while (value >= 999.95 && unit + 1 < std::size(units)) {
    value /= 1000;
    ++unit;
  }
  std::snprintf(text, sizeof text, "%.1f %s", value, units[unit]);
  return text;
}

std::string fit_to_width(std::string text, std::size_t width) {
  if (width > 0 && text.size() >= width) text.resize(width - 1);
  return text;
}

terminal_line::terminal_line(int fd, bool enabled)
    : fd_(fd), active_(enabled && ::isatty(fd) == 1) {}

terminal_line::~terminal_line() {
  clear();
}

std::size_t terminal_line::width() const {
  winsize size{};
  if (::ioctl(fd_, TIOCGWINSZ, &size) != 0 || size.ws_col == 0) return 80;
  return size.ws_col;
}

void terminal_line::draw(std::string_view text) {
  if (!active_) return;
  std::string line = "\r";
  line += text;
  line += "\x1b[K";
  // A line on a terminal is not worth an error: a short or failed write is redrawn next time.
  [[maybe_unused]] ssize_t n = ::write(fd_, line.data(), line.size());
  drawn_ = true;
}

void terminal_line::erase() {
  if (active_ && drawn_) {
    constexpr char sequence[] = "\r\x1b[K";
    [[maybe_unused]] ssize_t n = ::write(fd_, sequence, sizeof sequence - 1);
  }
  drawn_ = false;
}

void terminal_line::clear() {
  erase();
  active_ = false;
}

}  // namespace arec::base
