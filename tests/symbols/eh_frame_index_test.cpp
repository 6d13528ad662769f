#include "symbols/eh_frame_index.hpp"

#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <cstring>

namespace arec::symbols {
namespace {

// An .eh_frame_hdr as linkers write it: version 1, eh_frame_ptr pcrel|sdata4, count udata4,
// table datarel|sdata4, then (start, FDE) pairs relative to the header.
std::array<std::byte, 28> header_with(std::uint32_t count, std::int32_t first, std::int32_t second) {
  std::array<std::byte, 28> bytes{};
  const std::uint8_t fixed[4] = {1, 0x1b, 0x03, 0x3b};
  std::memcpy(bytes.data(), fixed, 4);
  std::memcpy(bytes.data() + 8, &count, 4);
  std::memcpy(bytes.data() + 12, &second, 4);  // out of order: the reader sorts
  std::memcpy(bytes.data() + 20, &first, 4);
  return bytes;
}

TEST(EhFrameIndex, StartsAreRelativeToTheHeaderAndSorted) {
  auto bytes = header_with(2, -0x100, 0x40);
  EXPECT_EQ(parse_fde_starts(bytes, 0x2000), (std::vector<std::uint64_t>{0x1f00, 0x2040}));
}

TEST(EhFrameIndex, ACountTheSectionCannotHoldReadsAsNoTable) {
  auto bytes = header_with(3, 0, 0x10);
  EXPECT_TRUE(parse_fde_starts(bytes, 0x2000).empty());
}

TEST(EhFrameIndex, AnotherTableEncodingReadsAsNoTable) {
  auto bytes = header_with(2, 0, 0x10);
  bytes[3] = std::byte{0x1b};
  EXPECT_TRUE(parse_fde_starts(bytes, 0x2000).empty());
}

}  // namespace
}  // namespace arec::symbols
