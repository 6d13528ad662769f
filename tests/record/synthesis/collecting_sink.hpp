// collecting_sink: a record_sink that keeps every synthesized record, readable field by field,
// for the synthesizer's and the kernel maps' tests.
#pragma once

#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <vector>

#include "io/record_sink.hpp"

namespace arec::test::synthesized {

// A record read back from its bytes.
struct record {
  std::vector<std::byte> bytes;

  std::uint32_t type() const { return u32(0); }
  std::uint16_t misc() const { return u16(4); }
  std::uint16_t size() const { return u16(6); }
  std::uint16_t u16(std::size_t at) const { return get<std::uint16_t>(at); }
  std::uint32_t u32(std::size_t at) const { return get<std::uint32_t>(at); }
  std::uint64_t u64(std::size_t at) const { return get<std::uint64_t>(at); }
  // The NUL-terminated string at `at` (COMM: 16, MMAP: 40, MMAP2: 72).
  std::string text(std::size_t at) const {
    return std::string{reinterpret_cast<const char*>(bytes.data() + at)};
  }
  template <typename T>
  T get(std::size_t at) const {
    T value;
    std::memcpy(&value, bytes.data() + at, sizeof value);
    return value;
  }
};

class collecting_sink : public arec::io::record_sink {
 public:
  void write(std::span<const std::byte> bytes) override {
    records.push_back(record{{bytes.begin(), bytes.end()}});
  }
  std::vector<record> records;
};

// Every record is well-formed and ends with a zero trailer of `sample_id_size` bytes.
inline void expect_well_formed(const std::vector<record>& records, std::size_t sample_id_size) {
  for (const auto& r : records) {
    ASSERT_EQ(r.size(), r.bytes.size());
    ASSERT_EQ(r.size() % 8, 0u);
    for (std::size_t i = r.bytes.size() - sample_id_size; i < r.bytes.size(); ++i)
      ASSERT_EQ(r.bytes[i], std::byte{0});
  }
}

}  // namespace arec::test::synthesized
