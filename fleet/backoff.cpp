#include "fleet/backoff.hpp"

#include <algorithm>

namespace arec::fleet {

backoff::backoff(std::chrono::milliseconds first, std::chrono::milliseconds cap, std::uint64_t seed)
    : first_(first), cap_(std::max(cap, first)), random_(seed) {}

std::chrono::milliseconds backoff::next() {
  // 2^failures stops growing once the cap is reached, so the shift never overflows.
  auto ceiling = first_;
  for (unsigned i = 0; i < failures_ && ceiling < cap_; ++i) ceiling *= 2;
  ceiling = std::min(ceiling, cap_);
  ++failures_;
  std::uniform_int_distribution<std::int64_t> draw(ceiling.count() / 2, ceiling.count());
  return std::chrono::milliseconds(draw(random_));
}

}  // namespace arec::fleet
