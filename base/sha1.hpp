// sha1: the SHA-1 digest (FIPS 180-1), as `ld --build-id=sha1` computes build-ids: for a
// build-id arec derives itself from content another user controls (a JIT's perf map), so that
// no one can write content whose build-id is another's.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>

namespace arec::base {

class sha1 {
 public:
  using digest = std::array<std::uint8_t, 20>;

  void add(std::span<const std::byte> bytes) noexcept;
  // The digest of everything added; the object is spent afterwards.
  digest finish() noexcept;

 private:
  void compress(const std::uint8_t* block) noexcept;

  std::array<std::uint32_t, 5> state_{0x67452301, 0xefcdab89, 0x98badcfe, 0x10325476, 0xc3d2e1f0};
  std::array<std::uint8_t, 64> block_{};
  std::size_t filled_ = 0;
  std::uint64_t bytes_ = 0;
};

}  // namespace arec::base
