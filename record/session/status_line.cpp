#include "record/session/status_line.hpp"

#include <cinttypes>
#include <cstdio>

#include "async/task.hpp"
#include "async/timer.hpp"

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

// Redraws until the context stops or the line is cleared. The line outlives the context's run.
async::task<void> redraw(status_line& line, std::function<status_snapshot()> sample,
                         std::chrono::milliseconds interval, async::executor on) {
  auto started = std::chrono::steady_clock::now();
  async::timer timer(on);
  for (;;) {
    co_await timer.wait_for(interval);
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
  std::string written = base::format_bytes(status.bytes_written);
  char ratio[32] = "";
  if (status.compression_ratio)
    std::snprintf(ratio, sizeof ratio, " (x%.1f)", *status.compression_ratio);
  std::snprintf(text, sizeof text,
                "arec: %s | %" PRIu64 " samples | %s written%s | %" PRIu64
                " %s | fullest ring %u%%",
                format_elapsed(status.elapsed).c_str(), status.samples, written.c_str(), ratio,
                status.lost, status.lost ? "LOST" : "lost",
                static_cast<unsigned>((status.fullest_ring_permille + 5) / 10));
  return base::fit_to_width(text, width);
}

void status_line::start(const async::executor& on, std::function<status_snapshot()> sample,
                        std::chrono::milliseconds interval) {
  if (!active()) return;
  async::spawn_detached(on, redraw(*this, std::move(sample), interval, on));
}

}  // namespace arec::record
