#include "base/sha1.hpp"

#include <bit>
#include <cstring>

namespace arec::base {

void sha1::compress(const std::uint8_t* block) noexcept {
  std::uint32_t w[80];
  for (int i = 0; i < 16; ++i)
    w[i] = std::uint32_t{block[4 * i]} << 24 | std::uint32_t{block[4 * i + 1]} << 16 |
           std::uint32_t{block[4 * i + 2]} << 8 | block[4 * i + 3];
  for (int i = 16; i < 80; ++i) w[i] = std::rotl(w[i - 3] ^ w[i - 8] ^ w[i - 14] ^ w[i - 16], 1);
  auto [a, b, c, d, e] = state_;
  for (int i = 0; i < 80; ++i) {
    std::uint32_t f, k;
    if (i < 20) {
      f = (b & c) | (~b & d), k = 0x5a827999;
    } else if (i < 40) {
      f = b ^ c ^ d, k = 0x6ed9eba1;
    } else if (i < 60) {
      f = (b & c) | (b & d) | (c & d), k = 0x8f1bbcdc;
    } else {
      f = b ^ c ^ d, k = 0xca62c1d6;
    }
    std::uint32_t next = std::rotl(a, 5) + f + e + k + w[i];
    e = d, d = c, c = std::rotl(b, 30), b = a, a = next;
  }
  state_[0] += a, state_[1] += b, state_[2] += c, state_[3] += d, state_[4] += e;
}

void sha1::add(std::span<const std::byte> bytes) noexcept {
  bytes_ += bytes.size();
  while (!bytes.empty()) {
    std::size_t take = std::min(bytes.size(), block_.size() - filled_);
    std::memcpy(block_.data() + filled_, bytes.data(), take);
    filled_ += take;
    bytes = bytes.subspan(take);
    if (filled_ == block_.size()) {
      compress(block_.data());
      filled_ = 0;
    }
  }
}

sha1::digest sha1::finish() noexcept {
  std::uint64_t bits = bytes_ * 8;
  std::byte pad[72]{std::byte{0x80}};
  std::size_t pad_size = (filled_ < 56 ? 56 : 120) - filled_;
  for (int i = 0; i < 8; ++i) pad[pad_size + i] = std::byte(bits >> (56 - 8 * i));
  add({pad, pad_size + 8});
  digest out;
  for (int i = 0; i < 20; ++i)
    out[i] = static_cast<std::uint8_t>(state_[i / 4] >> (24 - 8 * (i % 4)));
  return out;
}

}  // namespace arec::base
