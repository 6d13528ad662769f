// terminal_line: one line redrawn in place on a terminal (carriage return, the text cut to the
// terminal's width so it never wraps, erase to the end of the line), and erased before anything
// else is printed. The recording's status line and convert's progress bar both draw with it.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace arec::base {

// A byte count in decimal units, as disk sizes are given: "512 B", "1.5 kB", "12.3 MB".
std::string format_bytes(std::uint64_t bytes);

// `text` cut to `width` columns, leaving the last one free (a line that fills it may wrap, and a
// wrapped line cannot be redrawn in place); width 0 means no limit.
std::string fit_to_width(std::string text, std::size_t width);

class terminal_line {
 public:
  // Draws on `fd` only when `enabled` and `fd` is a terminal; otherwise every call does nothing.
  terminal_line(int fd, bool enabled);
  terminal_line(const terminal_line&) = delete;
  terminal_line& operator=(const terminal_line&) = delete;
  ~terminal_line();  // clear()

  bool active() const noexcept { return active_; }
  bool drawn() const noexcept { return drawn_; }
  // The terminal's width in columns (80 when it does not say).
  std::size_t width() const;
  // Redraws the line with `text` (already fitted to width()).
  void draw(std::string_view text);
  // Erases the line until the next draw, so that another message starts on a clean line.
  void erase();
  // Erases the line; later draws do nothing.
  void clear();

 private:
  int fd_;
  bool active_;
  bool drawn_ = false;
};

}  // namespace arec::base
