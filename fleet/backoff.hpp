// backoff: the delay before the next try after consecutive failures: doubling from `first` up
// to `cap`, each delay drawn between half and all of that ("equal jitter"), so that many hosts
// whose server came back do not all retry at the same instant.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <random>
#include <string_view>

namespace arec::fleet {

class backoff {
 public:
  backoff(std::chrono::milliseconds first, std::chrono::milliseconds cap, std::uint64_t seed);

  // The delay after one more failure; at least what the server `asked` for (Retry-After), up to
  // the cap, so a server that sheds load is not hit again before it said, nor silences us for
  // longer than the cap.
  std::chrono::milliseconds next(std::optional<std::chrono::milliseconds> asked = std::nullopt);
  // After a success: the next failure waits `first` again.
  void reset() noexcept { failures_ = 0; }

 private:
  std::chrono::milliseconds first_, cap_;
  unsigned failures_ = 0;
  std::mt19937_64 random_;
};

// The wait a Retry-After header value asks for (RFC 9110 10.2.3): delay-seconds ("120") or an
// HTTP-date ("Wed, 21 Oct 2015 07:28:00 GMT", a date past `now` being 0); nullopt when it is
// neither.
std::optional<std::chrono::milliseconds> parse_retry_after(
    std::string_view value, std::chrono::system_clock::time_point now);

}  // namespace arec::fleet
