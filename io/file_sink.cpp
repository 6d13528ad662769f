#include "io/file_sink.hpp"

#include <cstring>

#include "io/output_path.hpp"

namespace arec::io {

file_sink::file_sink(int fd, std::uint64_t offset, std::string path)
    : fd_(fd), offset_(offset), path_(std::move(path)) {}

void file_sink::write(std::span<const std::byte> record) {
  if (used_ + record.size() > buffer_.size()) flush();
  std::memcpy(buffer_.data() + used_, record.data(), record.size());
  used_ += record.size();
  ++records_;
}

std::uint64_t file_sink::flush() {
  write_all_at(fd_, buffer_.data(), used_, offset_, path_);
  offset_ += used_;
  used_ = 0;
  return offset_;
}

}  // namespace arec::io
