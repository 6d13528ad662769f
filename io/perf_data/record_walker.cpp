#include "io/perf_data/record_walker.hpp"

#include <fcntl.h>

#include <algorithm>
#include <cstring>
#include <stdexcept>

#include "io/perf_data/format_error.hpp"
#include "io/system_error.hpp"

namespace arec::io::perf {
namespace {

constexpr std::size_t header_bytes = sizeof(record_header);

record_header load_header(const std::byte* bytes) {
  record_header header{};
  std::memcpy(&header, bytes, sizeof header);
  return header;
}

}  // namespace

record_walker record_walker::open(data_range range, const walk_options& options) {
  unique_fd fd = unique_fd::open(range.path.c_str(), O_RDONLY | O_CLOEXEC);
  // Read once, front to back: let the kernel read ahead aggressively and drop pages behind us.
  (void)::posix_fadvise(fd.get(), 0, 0, POSIX_FADV_SEQUENTIAL);
  return record_walker(std::move(range), std::move(fd), options);
}

record_walker::record_walker(data_range range, unique_fd fd, const walk_options& options)
    : range_(std::move(range)), fd_(std::move(fd)), options_(options) {
  if (options.buffer_bytes < 2 * max_record_size + 2)
    throw std::invalid_argument("record_walker: read buffer of " +
                                std::to_string(options.buffer_bytes) +
                                " bytes cannot hold two records");
  raw_.resize(options.buffer_bytes);
  raw_base_ = range_.begin;
}

std::nullopt_t record_walker::fail(std::uint64_t offset, std::string problem, bool cut) {
  if (!options_.salvage)
    throw format_error(range_.path, offset,
                       cut ? problem + "; cut short? --salvage keeps the records before it"
                           : problem);
  ended_ = true;
  damage_ = walk_damage{offset, std::move(problem), range_.end - std::min(offset, range_.end)};
  return std::nullopt;
}

void record_walker::fill(std::size_t count) {
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
    ssize_t got = retry_on_eintr(
        [&] { return ::pread(fd_.get(), raw_.data() + raw_end_, want, static_cast<off_t>(at)); });
    if (got < 0) throw_errno("pread", range_.path);
    if (got == 0)  // the file shrank under us
      throw format_error(range_.path, at, "file ended while reading (shrunk while converting?)");
    raw_end_ += static_cast<std::size_t>(got);
  }
}

std::optional<walked_record> record_walker::next_decompressed() {
  std::size_t left = plain_.size() - plain_pos_;
  if (left < header_bytes) return std::nullopt;
  record_header header = load_header(plain_.data() + plain_pos_);
  if (header.size < header_bytes)
    return fail(plain_origin_, "in the data of the COMPRESSED record: record size " +
                                   std::to_string(header.size) +
                                   " is smaller than its 8-byte header (type " +
                                   std::to_string(header.type) + ")");
  if (header.size > left) return std::nullopt;  // continues in the next COMPRESSED record
  if (header.type == record_compressed)
    return fail(plain_origin_, "in the data of the COMPRESSED record: a nested COMPRESSED record");
  walked_record out{header, std::span{plain_.data() + plain_pos_, header.size}, plain_origin_};
  plain_pos_ += header.size;
  return out;
}

std::optional<walked_record> record_walker::next() {
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
                                       " bytes of it decompressed)",
                    true);
      return std::nullopt;
    }
    if (left < header_bytes)
      return fail(offset,
                  "record header truncated: " + std::to_string(left) + " bytes left in the data",
                  true);
    fill(header_bytes);
    record_header header = load_header(raw_.data() + raw_pos_);
    if (header.size < header_bytes)
      return fail(offset, "record size " + std::to_string(header.size) +
                              " is smaller than its 8-byte header (type " +
                              std::to_string(header.type) + ")");
    if (header.size > left)
      return fail(offset, "record of size " + std::to_string(header.size) +
                              " runs past the end of the data (" + std::to_string(left) +
                              " bytes left, type " + std::to_string(header.type) + ")",
                  true);
    fill(header.size);
    std::span<const std::byte> whole{raw_.data() + raw_pos_, header.size};
    raw_pos_ += header.size;
    if (header.type != record_compressed || !options_.expand_compressed)
      return walked_record{header, whole, offset};

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

}  // namespace arec::io::perf
