// status_line: the one line a recording redraws on a terminal's stderr (elapsed time, samples,
// bytes written, losses, the fullest ring), cleared when the recording ends. Its text comes
// from a pure function, so what it says is tested without a terminal.
#pragma once

#include <asio/io_context.hpp>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>

namespace arec::record {

// A byte count in decimal units, as disk sizes are given: "512 B", "1.5 kB", "12.3 MB".
std::string format_bytes(std::uint64_t bytes);

// The numbers of one redraw.
struct status_snapshot {
  std::chrono::milliseconds elapsed{0};  // filled in by start()'s redraws
  std::uint64_t samples = 0;
  std::uint64_t bytes_written = 0;
  std::optional<double> compression_ratio;  // with -z, once anything was compressed
  std::uint64_t lost = 0;
  std::uint32_t fullest_ring_permille = 0;  // the fullest ring buffer's fill, 0..1000
};

// "arec: 12.3 s | 45678 samples | 12.3 MB written (x4.1) | 0 lost | fullest ring 37%", with
// "LOST" in capitals once samples were lost; cut to `width` columns so it never wraps (a
// wrapped line could not be redrawn in place).
std::string format_status(const status_snapshot& status, std::size_t width);

class status_line {
 public:
  // Draws on `fd` only when `enabled` and `fd` is a terminal; otherwise every call does nothing.
  status_line(int fd, bool enabled);
  status_line(const status_line&) = delete;
  status_line& operator=(const status_line&) = delete;
  // Clears what is drawn.
  ~status_line();

  bool active() const { return active_; }
  // Redraws in place: carriage return, the text, erase to the end of the line.
  void draw(const status_snapshot& status);
  // Erases the line until the next draw, so that another message starts on a clean line.
  void erase();
  // Erases the line; later draws do nothing (the summary follows on a clean line).
  void clear();

  // Redraws every `interval` on `context` with what `sample` returns, until the context stops
  // (the coroutine then dies with it) or clear() is called. Does nothing when not active.
  // `sample` runs on the context's thread and must only read atomics. Elapsed time counts
  // from this call.
  void start(asio::io_context& context, std::function<status_snapshot()> sample,
             std::chrono::milliseconds interval = std::chrono::milliseconds(500));

 private:
  std::size_t terminal_width() const;

  int fd_;
  bool active_;
  bool drawn_ = false;
};

}  // namespace arec::record
