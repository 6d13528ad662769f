#include "perf_data/build_id.hpp"

#include <algorithm>
#include <cstring>

namespace arec::perf_data {

build_id build_id::from(std::span<const std::byte> data) noexcept {
  build_id id;
  id.size = static_cast<std::uint8_t>(std::min(data.size(), max_size));
  std::memcpy(id.bytes.data(), data.data(), id.size);
  return id;
}

std::string build_id::hex() const {
  static constexpr char digits[] = "0123456789abcdef";
  std::string text;
  text.reserve(2 * size);
  for (std::size_t i = 0; i < size; ++i) {
    text.push_back(digits[bytes[i] >> 4]);
    text.push_back(digits[bytes[i] & 0xf]);
  }
  return text;
}

}  // namespace arec::perf_data
