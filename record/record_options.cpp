#include "record/record_options.hpp"

#include <fcntl.h>

#include <array>
#include <charconv>
#include <stdexcept>
#include <string_view>

#include "base/system_error.hpp"
#include "io/small_file.hpp"

namespace arec::record {

std::uint64_t read_max_sample_rate() {
  constexpr const char* path = "/proc/sys/kernel/perf_event_max_sample_rate";
  std::array<char, 32> buffer;
  std::optional<std::string_view> text = io::read_small_file(AT_FDCWD, path, buffer);
  if (!text) base::throw_errno("read", path);
  std::string_view value = *text;
  while (!value.empty() && (value.back() == '\n' || value.back() == ' ')) value.remove_suffix(1);
  std::uint64_t rate = 0;
  auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), rate);
  if (ec != std::errc{} || end != value.data() + value.size() || rate == 0)
    throw std::runtime_error(std::string("unreadable sample rate in ") + path);
  return rate;
}

sampling effective_sampling(const record_options& options) {
  if (options.period) return {.use_frequency = false, .value = *options.period};
  if (options.frequency) return {.use_frequency = true, .value = *options.frequency};
  return {};
}

}  // namespace arec::record
