#include "record/status_line.hpp"

#include <sys/ioctl.h>
#include <unistd.h>

#include <asio/steady_timer.hpp>
#include <cinttypes>
#include <cstdio>

#include "async/task.hpp"

namespace arec::record {
namespace {

std::string format_elapsed(std::chrono::milliseconds elapsed) {
  char text[32];
  auto tenths = static_cast<unsigned long long>(elapsed.count() / 100);
  auto seconds = tenths / 10;
  if (seconds < 60)
    std::snprintf(text, sizeof text, "%llu.%llu s", seconds, tenths % 10);
  else if (seconds < 3600)
    std::snprintf(text, sizeof text, "%llum%02llus", seconds / 60, seconds % 60);
  else
    std::snprintf(text, sizeof text, "%lluh%02llum%02llus", seconds / 3600, seconds / 60 % 60,
                  seconds % 60);
  return text;
}

}  // namespace

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

namespace {

// Redraws until the context stops or the line is cleared. The line outlives the context's run.
async::task<void> redraw(status_line& line, std::function<status_snapshot()> sample,
                         std::chrono::milliseconds interval) {
  auto started = std::chrono::steady_clock::now();
  asio::steady_timer timer(co_await asio::this_coro::executor);
  for (;;) {
    timer.expires_after(interval);
    co_await timer.async_wait(asio::use_awaitable);
    if (!line.active()) co_return;
    status_snapshot status = sample();
    status.elapsed = std::chrono::duration_cast<std::chrono::milliseconds>(
        std::chrono::steady_clock::now() - started);
    line.draw(status);
  }
}

}  // namespace

std::string format_status(const status_snapshot& status, std::size_t width) {
  char text[256];
  std::string written = format_bytes(status.bytes_written);
  char ratio[32] = "";
  if (status.compression_ratio)
    std::snprintf(ratio, sizeof ratio, " (x%.1f)", *status.compression_ratio);
  std::snprintf(text, sizeof text,
                "arec: %s | %" PRIu64 " samples | %s written%s | %" PRIu64
                " %s | fullest ring %u%%",
                format_elapsed(status.elapsed).c_str(), status.samples, written.c_str(), ratio,
                status.lost, status.lost ? "LOST" : "lost",
                static_cast<unsigned>((status.fullest_ring_permille + 5) / 10));
  std::string line = text;
  if (width > 0 && line.size() >= width) line.resize(width - 1);  // the last column may wrap
  return line;
}

status_line::status_line(int fd, bool enabled) : fd_(fd), active_(enabled && ::isatty(fd) == 1) {}

status_line::~status_line() {
  clear();
}

std::size_t status_line::terminal_width() const {
  winsize size{};
  if (::ioctl(fd_, TIOCGWINSZ, &size) != 0 || size.ws_col == 0) return 80;
  return size.ws_col;
}

void status_line::draw(const status_snapshot& status) {
  if (!active_) return;
  std::string text = "\r" + format_status(status, terminal_width()) + "\x1b[K";
  // A status line is not worth an error: a short or failed write is simply redrawn next time.
  [[maybe_unused]] ssize_t n = ::write(fd_, text.data(), text.size());
  drawn_ = true;
}

void status_line::erase() {
  if (active_ && drawn_) {
    constexpr char sequence[] = "\r\x1b[K";
    [[maybe_unused]] ssize_t n = ::write(fd_, sequence, sizeof sequence - 1);
  }
  drawn_ = false;
}

void status_line::clear() {
  erase();
  active_ = false;
}

void status_line::start(asio::io_context& context, std::function<status_snapshot()> sample,
                        std::chrono::milliseconds interval) {
  if (!active_) return;
  asio::co_spawn(context, redraw(*this, std::move(sample), interval), asio::detached);
}

}  // namespace arec::record
