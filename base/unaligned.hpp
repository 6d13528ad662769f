// unaligned: a value of type T read from or written to any byte offset of a buffer. Records in
// a perf.data stream are 8-aligned only as a whole, and a buffer's own alignment is unknown:
// memcpy is the well-defined way (compilers make it one load or store).
#pragma once

#include <cstddef>
#include <cstring>
#include <span>
#include <type_traits>

namespace arec::base {

template <typename T>
requires std::is_trivially_copyable_v<T> T load(std::span<const std::byte> bytes,
                                                std::size_t offset) {
  T value{};
  std::memcpy(&value, bytes.data() + offset, sizeof value);
  return value;
}

template <typename T>
requires std::is_trivially_copyable_v<T>
void store(std::span<std::byte> bytes, std::size_t offset, const T& value) {
  std::memcpy(bytes.data() + offset, &value, sizeof value);
}

}  // namespace arec::base
