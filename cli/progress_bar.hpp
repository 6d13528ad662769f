// progress_bar: `arec convert`'s bar on a terminal's stderr (bytes done of total, rate, time
// left), redrawn at most ten times a second and erased at the end. Its text comes from a pure
// function, tested without a terminal.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string>

#include "base/terminal_line.hpp"

namespace arec::cli {

// "arec: converting [#########...........]  45% 12.3 MB of 27.0 MB, 150.2 MB/s, 0:03 left",
// cut to `width` columns so it never wraps. No rate or time left before any time has passed.
std::string format_progress(std::uint64_t done, std::uint64_t total,
                            std::chrono::milliseconds elapsed, std::size_t width);

class progress_bar {
 public:
  // Draws on `fd` only when `enabled` and `fd` is a terminal; otherwise update() does nothing.
  progress_bar(int fd, bool enabled) : line_(fd, enabled) {}

  bool active() const { return line_.active(); }
  // Redraws when 100 ms passed since the last redraw, and always once `done` reaches `total`.
  void update(std::uint64_t done, std::uint64_t total);
  // Erases the bar; later updates do nothing.
  void clear() { line_.clear(); }

 private:
  base::terminal_line line_;  // erases itself when destroyed
  std::chrono::steady_clock::time_point started_ = std::chrono::steady_clock::now();
  std::chrono::steady_clock::time_point last_draw_{};
};

}  // namespace arec::cli
