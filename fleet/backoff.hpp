// backoff: the delay before the next try after consecutive failures: doubling from `first` up
// to `cap`, each delay drawn between half and all of that ("equal jitter"), so that many hosts
// whose server came back do not all retry at the same instant.
#pragma once

#include <chrono>
#include <cstdint>
#include <random>

namespace arec::fleet {

class backoff {
 public:
  backoff(std::chrono::milliseconds first, std::chrono::milliseconds cap, std::uint64_t seed);

  // The delay after one more failure.
  std::chrono::milliseconds next();
  // After a success: the next failure waits `first` again.
  void reset() noexcept { failures_ = 0; }

 private:
  std::chrono::milliseconds first_, cap_;
  unsigned failures_ = 0;
  std::mt19937_64 random_;
};

}  // namespace arec::fleet
