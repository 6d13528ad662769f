// build_id: the identity the linker writes into an ELF file (NT_GNU_BUILD_ID), up to 20 bytes,
// as perf stores it in MMAP2 records and the BUILD_ID feature.
#pragma once

#include <array>
#include <compare>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

namespace arec::perf_data {

struct build_id {
  static constexpr std::size_t max_size = 20;
  std::array<std::uint8_t, max_size> bytes{};  // zero beyond size
  std::uint8_t size = 0;                       // 0: unknown

  bool empty() const noexcept { return size == 0; }
  // What arec writes for a mapped file it could not read (its process was gone first) whose
  // path may now hold another file: 20 zero bytes, which no linker writes. perf refuses any
  // file whose build-id differs from the recorded one, so the samples stay unnamed rather than
  // charged to the functions of whatever is at the path (docs/symbols.md).
  static constexpr build_id of_unread_file() noexcept {
    build_id id;
    id.size = max_size;
    return id;
  }
  bool is_of_unread_file() const noexcept { return *this == of_unread_file(); }
  // The first min(data.size(), 20) bytes of `data`.
  static build_id from(std::span<const std::byte> data) noexcept;
  // Lower-case hex of the `size` bytes, as readelf -n and perf buildid-list print it.
  std::string hex() const;
  friend auto operator<=>(const build_id&, const build_id&) = default;
};

}  // namespace arec::perf_data
