#include "fleet/backoff.hpp"

#include <time.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <string>

namespace arec::fleet {

backoff::backoff(std::chrono::milliseconds first, std::chrono::milliseconds cap, std::uint64_t seed)
    : first_(first), cap_(std::max(cap, first)), random_(seed) {}

std::chrono::milliseconds backoff::next(std::optional<std::chrono::milliseconds> asked) {
  // 2^failures stops growing once the cap is reached, so the shift never overflows.
  auto ceiling = first_;
  for (unsigned i = 0; i < failures_ && ceiling < cap_; ++i) ceiling *= 2;
  ceiling = std::min(ceiling, cap_);
  ++failures_;
  std::uniform_int_distribution<std::int64_t> draw(ceiling.count() / 2, ceiling.count());
  auto delay = std::chrono::milliseconds(draw(random_));
  if (asked) delay = std::max(delay, std::min(*asked, cap_));
  return delay;
}

std::optional<std::chrono::milliseconds> parse_retry_after(
    std::string_view value, std::chrono::system_clock::time_point now) {
  while (!value.empty() && std::isspace(static_cast<unsigned char>(value.front())))
    value.remove_prefix(1);
  while (!value.empty() && std::isspace(static_cast<unsigned char>(value.back())))
    value.remove_suffix(1);
  if (value.empty()) return std::nullopt;
  if (std::isdigit(static_cast<unsigned char>(value.front()))) {
    std::uint32_t seconds = 0;  // more than 136 years is no answer either
    auto [end, error] = std::from_chars(value.data(), value.data() + value.size(), seconds);
    if (error != std::errc{} || end != value.data() + value.size()) return std::nullopt;
    return std::chrono::seconds(seconds);
  }
  // The IMF-fixdate form, the only one a server may send now; always GMT.
  std::string text(value);
  struct tm parts {};
  const char* end = ::strptime(text.c_str(), "%a, %d %b %Y %H:%M:%S GMT", &parts);
  if (end == nullptr || *end != '\0') return std::nullopt;
  auto when = std::chrono::system_clock::from_time_t(::timegm(&parts));
  if (when <= now) return std::chrono::milliseconds(0);
  return std::chrono::ceil<std::chrono::milliseconds>(when - now);
}

}  // namespace arec::fleet
