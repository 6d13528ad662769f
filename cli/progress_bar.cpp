#include "cli/progress_bar.hpp"

#include <algorithm>
#include <cstdio>

#include "base/terminal_line.hpp"

namespace arec::cli {
namespace {

constexpr std::size_t bar_cells = 20;
constexpr auto redraw_interval = std::chrono::milliseconds(100);

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
                base::format_bytes(done).c_str(), base::format_bytes(total).c_str());
  line += text;
  double seconds = static_cast<double>(elapsed.count()) / 1000;
  if (seconds > 0 && done > 0) {
    double rate = static_cast<double>(done) / seconds;
    auto left = static_cast<unsigned long long>(static_cast<double>(total - done) / rate + 0.5);
    std::snprintf(text, sizeof text, ", %s/s, %llu:%02llu left",
                  base::format_bytes(static_cast<std::uint64_t>(rate)).c_str(), left / 60,
                  left % 60);
    line += text;
  }
  return base::fit_to_width(std::move(line), width);
}

void progress_bar::update(std::uint64_t done, std::uint64_t total) {
  if (!line_.active()) return;
  auto now = std::chrono::steady_clock::now();
  if (line_.drawn() && done < total && now - last_draw_ < redraw_interval) return;  // the end shows
  last_draw_ = now;
  auto elapsed = std::chrono::duration_cast<std::chrono::milliseconds>(now - started_);
  line_.draw(format_progress(done, total, elapsed, line_.width()));
}

}  // namespace arec::cli
