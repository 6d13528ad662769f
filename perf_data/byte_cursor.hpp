// byte_cursor: reads perf's packed encodings (fixed-size values, u32-length strings) out of
// one section of a perf.data file, checking every read against the section's end. `base` is
// the section's file offset, so that a format_error names the absolute offset of the problem.
#pragma once

#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <string_view>

#include "perf_data/format_error.hpp"

namespace arec::perf_data {

class byte_cursor {
 public:
  byte_cursor(std::span<const std::byte> bytes, std::uint64_t base, std::string_view what,
              std::string_view file)
      : bytes_(bytes), base_(base), what_(what), file_(file) {}

  std::span<const std::byte> take(std::uint64_t count) {
    if (count > bytes_.size() - pos_)
      fail(std::string(what_) + " needs " + std::to_string(count) +
           " more bytes but its section has " + std::to_string(bytes_.size() - pos_));
    auto part = bytes_.subspan(pos_, static_cast<std::size_t>(count));
    pos_ += static_cast<std::size_t>(count);
    return part;
  }
  template <typename T>
  T value() {
    T out;
    std::memcpy(&out, take(sizeof out).data(), sizeof out);
    return out;
  }
  std::string string() {
    auto length = value<std::uint32_t>();
    auto text = take(length);
    const char* chars = reinterpret_cast<const char*>(text.data());
    const void* nul = std::memchr(chars, 0, text.size());
    if (!nul) fail(std::string(what_) + " has a string without a terminating NUL");
    return std::string(chars, static_cast<const char*>(nul));
  }
  std::uint64_t offset() const { return base_ + pos_; }
  std::uint64_t left() const { return bytes_.size() - pos_; }

 private:
  [[noreturn]] void fail(const std::string& problem) {
    throw format_error(file_, offset(), problem);
  }

  std::span<const std::byte> bytes_;
  std::uint64_t base_;
  std::string_view what_;
  std::string_view file_;
  std::size_t pos_ = 0;
};

}  // namespace arec::perf_data
