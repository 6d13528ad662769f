// file_sink: a record_sink that appends to a file at a given offset through a fixed buffer, for
// the records arec writes before streaming starts (synthesized tasks, maps, markers).
#pragma once

#include <array>
#include <cstdint>
#include <string>

#include "io/record_sink.hpp"

namespace arec::io {

class file_sink final : public record_sink {
 public:
  file_sink(int fd, std::uint64_t offset, std::string path);
  void write(std::span<const std::byte> record) override;
  // Writes what is buffered; returns the offset after the last byte.
  std::uint64_t flush();
  std::uint64_t records() const { return records_; }

 private:
  int fd_;
  std::uint64_t offset_;
  std::string path_;
  std::array<std::byte, 256 * 1024> buffer_;
  std::size_t used_ = 0;
  std::uint64_t records_ = 0;
};

}  // namespace arec::io
