// status_line: the one line a recording redraws on a terminal's stderr (elapsed time, samples,
// bytes written, losses, the fullest ring), cleared when the recording ends. Its text comes
// from a pure function, so what it says is tested without a terminal.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "async/spawn.hpp"
#include "base/terminal_line.hpp"

namespace arec::record {

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
  status_line(int fd, bool enabled) : line_(fd, enabled) {}

  bool active() const { return line_.active(); }
  // Redraws in place with `status`.
  void draw(const status_snapshot& status) { line_.draw(format_status(status, line_.width())); }
  // Erases the line until the next draw, so that another message starts on a clean line.
  void erase() { line_.erase(); }
  // Erases the line; later draws do nothing (the summary follows on a clean line).
  void clear() { line_.clear(); }

  // Redraws every `interval` on `on` with what `sample` returns, until its context stops
  // (the coroutine then dies with it) or clear() is called. Does nothing when not active.
  // `sample` runs on the context's thread and must only read atomics. Elapsed time counts
  // from this call.
  void start(const async::executor& on, std::function<status_snapshot()> sample,
             std::chrono::milliseconds interval = std::chrono::milliseconds(500));

 private:
  base::terminal_line line_;  // clears itself when destroyed
};

}  // namespace arec::record
