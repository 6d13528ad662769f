#include "record/progress_bar.hpp"

#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>

#include "record/status_line.hpp"

namespace arec::record {
namespace {

constexpr std::size_t bar_cells = 20;
constexpr auto redraw_interval = std::chrono::milliseconds(100);

std::size_t terminal_width(int fd) {
  winsize size{};
  if (::ioctl(fd, TIOCGWINSZ, &size) != 0 || size.ws_col == 0) return 80;
  return size.ws_col;
}

}  // namespace

std::string format_progress(std::uint64_t done, std::uint64_t total,
                            std::chrono::milliseconds elapsed, std::size_t width) {
  done = std::min(done, total);
  double fraction = total ? static_cast<double>(done) / static_cast<double>(total) : 1.0;
  auto filled = static_cast<std::size_t>(fraction * bar_cells);
  std::string line = "arec: converting [";
  line.append(filled, '#');
  line.append(bar_cells - filled, '.');
  char text[160];
  std::snprintf(text, sizeof text, "] %3d%% %s of %s", static_cast<int>(fraction * 100),
                format_bytes(done).c_str(), format_bytes(total).c_str());
  line += text;
  double seconds = static_cast<double>(elapsed.count()) / 1000;
  if (seconds > 0 && done > 0) {
    double rate = static_cast<double>(done) / seconds;
    auto left = static_cast<unsigned long long>(static_cast<double>(total - done) / rate + 0.5);
    std::snprintf(text, sizeof text, ", %s/s, %llu:%02llu left",
                  format_bytes(static_cast<std::uint64_t>(rate)).c_str(), left / 60, left % 60);
    line += text;
  }
  if (width > 0 && line.size() >= width) line.resize(width - 1);  // the last column may wrap
  return line;
}

progress_bar::progress_bar(int fd, bool enabled) : fd_(fd), active_(enabled && ::isatty(fd) == 1) {}

progress_bar::~progress_bar() {
  clear();
}

void progress_bar::update(std::uint64_t done, std::uint64_t total) {
  if (!active_) return;
  auto now = std::chrono::steady_clock::now();
  if (drawn_ && done < total && now - last_draw_ < redraw_interval) return;  // the end always shows
  last_draw_ = now;
  auto elapsed = std::chrono::duration_cast<std::chrono::milliseconds>(now - started_);
  std::string text = "\r" + format_progress(done, total, elapsed, terminal_width(fd_)) + "\x1b[K";
  // Not worth an error: a failed write is simply redrawn next time.
  [[maybe_unused]] ssize_t n = ::write(fd_, text.data(), text.size());
  drawn_ = true;
}

void progress_bar::clear() {
  if (active_ && drawn_) {
    constexpr char sequence[] = "\r\x1b[K";
    [[maybe_unused]] ssize_t n = ::write(fd_, sequence, sizeof sequence - 1);
  }
  active_ = false;
  drawn_ = false;
}

}  // namespace arec::record
