#include "convert/record_source.hpp"

#include <fcntl.h>

#include <algorithm>
#include <cstring>
#include <stdexcept>

#include "io/perf_data/perf_file_reader.hpp"
#include "io/system_error.hpp"

namespace arec::convert {
namespace {

constexpr std::size_t header_bytes = sizeof(io::perf::record_header);

io::perf::record_header load_header(const std::byte* bytes) {
  io::perf::record_header header{};
  std::memcpy(&header, bytes, sizeof header);
  return header;
}

}  // namespace

record_source record_source::open(data_range range, bool salvage, std::size_t buffer_bytes) {
  io::unique_fd fd = io::unique_fd::open(range.path.c_str(), O_RDONLY | O_CLOEXEC);
  // Read once, front to back: let the kernel read ahead aggressively and drop pages behind us.
  (void)::posix_fadvise(fd.get(), 0, 0, POSIX_FADV_SEQUENTIAL);
  return record_source(std::move(range), std::move(fd), salvage, buffer_bytes);
}

record_source::record_source(data_range range, io::unique_fd fd, bool salvage,
                             std::size_t buffer_bytes)
    : range_(std::move(range)), fd_(std::move(fd)), salvage_(salvage) {
  if (buffer_bytes < 2 * io::perf::max_record_size + 2)
    throw std::invalid_argument("record_source: read buffer of " + std::to_string(buffer_bytes) +
                                " bytes cannot hold two records");
  raw_.resize(buffer_bytes);
  raw_base_ = range_.begin;
}

std::nullopt_t record_source::fail(std::uint64_t offset, std::string problem) {
  if (!salvage_) throw io::perf::format_error(range_.path, offset, problem);
  ended_ = true;
  damage_ = source_damage{offset, std::move(problem), range_.end - std::min(offset, range_.end)};
  return std::nullopt;
}

void record_source::fill(std::size_t count) {
  if (raw_end_ - raw_pos_ >= count) return;
  // Keep the unread tail, then read as much as fits (the buffer holds at least two records).
  std::memmove(raw_.data(), raw_.data() + raw_pos_, raw_end_ - raw_pos_);
  raw_base_ += raw_pos_;
  raw_end_ -= raw_pos_;
  raw_pos_ = 0;
  while (raw_end_ < count) {
    std::uint64_t at = raw_base_ + raw_end_;
    std::size_t want =
        static_cast<std::size_t>(std::min<std::uint64_t>(raw_.size() - raw_end_, range_.end - at));
    ssize_t got = io::retry_on_eintr([&] { return ::pread(fd_.get(), raw_.data() + raw_end_, want, static_cast<off_t>(at)); });
    if (got < 0) io::throw_errno("pread", range_.path);
    if (got == 0)  // the file shrank under us
      throw io::perf::format_error(range_.path, at, "file ended while reading (shrunk while converting?)");
    raw_end_ += static_cast<std::size_t>(got);
  }
}

std::optional<source_record> record_source::next_decompressed() {
  std::size_t left = plain_.size() - plain_pos_;
  if (left < header_bytes) return std::nullopt;
  io::perf::record_header header = load_header(plain_.data() + plain_pos_);
  if (header.size < header_bytes)
    return fail(plain_origin_, "in the data of the COMPRESSED record: record size " +
                                   std::to_string(header.size) +
                                   " is smaller than its 8-byte header (type " +
                                   std::to_string(header.type) + ")");
  if (header.size > left) return std::nullopt;  // continues in the next COMPRESSED record
  if (header.type == io::perf::record_compressed)
    return fail(plain_origin_, "in the data of the COMPRESSED record: a nested COMPRESSED record");
  source_record out{header, std::span{plain_.data() + plain_pos_, header.size}, plain_origin_};
  plain_pos_ += header.size;
  return out;
}

std::optional<source_record> record_source::next() {
  if (ended_) return std::nullopt;
  for (;;) {
    if (auto record = next_decompressed()) return record;
    if (ended_) return std::nullopt;

    std::uint64_t offset = raw_offset();
    std::uint64_t left = range_.end - offset;
    if (left == 0) {
      ended_ = true;
      if (plain_pos_ < plain_.size())
        return fail(plain_origin_, "the zstd stream ends inside a record (" +
                                       std::to_string(plain_.size() - plain_pos_) +
                                       " bytes of it decompressed)");
      return std::nullopt;
    }
    if (left < header_bytes)
      return fail(offset, "record header truncated: " + std::to_string(left) +
                              " bytes left in the data");
    fill(header_bytes);
    io::perf::record_header header = load_header(raw_.data() + raw_pos_);
    if (header.size < header_bytes)
      return fail(offset, "record size " + std::to_string(header.size) +
                              " is smaller than its 8-byte header (type " +
                              std::to_string(header.type) + ")");
    if (header.size > left)
      return fail(offset, "record of size " + std::to_string(header.size) +
                              " runs past the end of the data (" + std::to_string(left) +
                              " bytes left, type " + std::to_string(header.type) + ")");
    fill(header.size);
    std::span<const std::byte> whole{raw_.data() + raw_pos_, header.size};
    raw_pos_ += header.size;
    if (header.type != io::perf::record_compressed) return source_record{header, whole, offset};

    ++compressed_records_;
    if (!zstd_) zstd_.emplace();
    // Drop what was handed out so the buffer does not grow with the stream.
    plain_.erase(plain_.begin(), plain_.begin() + static_cast<std::ptrdiff_t>(plain_pos_));
    plain_pos_ = 0;
    plain_origin_ = offset;
    try {
      zstd_->feed(whole.subspan(header_bytes), plain_);
    } catch (const std::runtime_error& error) {
      return fail(offset, std::string("corrupt COMPRESSED record: ") + error.what());
    }
  }
}

}  // namespace arec::convert
