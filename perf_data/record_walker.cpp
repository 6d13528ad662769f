#include "perf_data/record_walker.hpp"

#include <fcntl.h>

#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <vector>

#include "base/system_error.hpp"
#include "perf_data/format_error.hpp"

namespace arec::perf_data {
namespace {

constexpr std::size_t header_bytes = sizeof(record_header);
// COMPRESSED2: the header, u64 data_size, then data_size bytes of zstd data, padded to 8.
constexpr std::size_t compressed2_prefix = header_bytes + sizeof(std::uint64_t);

record_header load_header(const std::byte* bytes) {
  record_header header{};
  std::memcpy(&header, bytes, sizeof header);
  return header;
}

// The bytes a COMPRESSED2 record takes in the file, or 0 when its size and data_size disagree.
// perf's writer (6.16) stores align8(16 + data_size) in the u16 size: at 64 KiB and over (one
// zstd chunk of 65,513 bytes or more, or several chunks written as one record) it wraps, and the
// record is written without its padding.
std::uint64_t compressed2_length(const record_header& header, std::uint64_t data_size) {
  if (data_size > (std::uint64_t{1} << 40)) return 0;  // no record is that large
  std::uint64_t unpadded = compressed2_prefix + data_size;
  std::uint64_t aligned = (unpadded + 7) & ~std::uint64_t{7};
  if (aligned == header.size) return aligned;
  if (aligned > max_record_size && (aligned & 0xffff) == header.size) return unpadded;
  return 0;
}

bool is_compressed2_header(std::span<const std::byte> data, std::size_t at) {
  if (data.size() - at < compressed2_prefix) return false;
  record_header header = load_header(data.data() + at);
  return header.type == record_compressed2 && header.misc == 0 &&
         header.size >= compressed2_prefix && header.size <= data.size() - at;
}

// The zstd data of a COMPRESSED2 record, in pieces, into `pieces`. perf writes a push of more
// than one zstd chunk as one record whose first header is overwritten with the totals; the
// later chunks keep their own headers (size = 16 + chunk, unpadded, data_size unset) inside the
// data. They are found as the chain of such headers that ends exactly at the end of the data,
// the first chunk being what comes before it. False when there is no such chain.
bool compressed2_pieces(std::span<const std::byte> data,
                        std::vector<std::span<const std::byte>>& pieces) {
  pieces.assign(1, data);
  if (compressed2_prefix + data.size() <= max_record_size) return true;
  for (std::size_t first = 1; first + compressed2_prefix <= data.size(); ++first) {
    pieces.assign(1, data.first(first));
    std::size_t at = first;
    while (at < data.size() && is_compressed2_header(data, at)) {
      std::size_t size = load_header(data.data() + at).size;
      pieces.push_back(data.subspan(at + compressed2_prefix, size - compressed2_prefix));
      at += size;
    }
    if (at == data.size() && pieces.size() > 1) return true;
  }
  return false;
}

}  // namespace

record_walker record_walker::open(data_range range, const walk_options& options) {
  io::unique_fd fd = io::unique_fd::open(range.path.c_str(), O_RDONLY | O_CLOEXEC);
  // Read once, front to back: let the kernel read ahead aggressively and drop pages behind us.
  (void)::posix_fadvise(fd.get(), 0, 0, POSIX_FADV_SEQUENTIAL);
  return record_walker(std::move(range), std::move(fd), options);
}

record_walker::record_walker(data_range range, io::unique_fd fd, const walk_options& options)
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
    throw format_error(
        range_.path, offset,
        cut ? problem + "; cut short? --salvage keeps the records before it" : problem);
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
    ssize_t got = base::retry_on_eintr(
        [&] { return ::pread(fd_.get(), raw_.data() + raw_end_, want, static_cast<off_t>(at)); });
    if (got < 0) base::throw_errno("pread", range_.path);
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
  if (header.type == record_compressed || header.type == record_compressed2)
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
        return fail(plain_origin_,
                    "the zstd stream ends inside a record (" +
                        std::to_string(plain_.size() - plain_pos_) + " bytes of it decompressed)",
                    true);
      return std::nullopt;
    }
    if (left < header_bytes)
      return fail(offset,
                  "record header truncated: " + std::to_string(left) + " bytes left in the data",
                  true);
    fill(header_bytes);
    record_header header = load_header(raw_.data() + raw_pos_);
    std::uint64_t length = header.size;
    if (header.type == record_compressed2) {
      if (left < compressed2_prefix)
        return fail(
            offset,
            "COMPRESSED2 record truncated: " + std::to_string(left) + " bytes left in the data",
            true);
      fill(compressed2_prefix);
      std::uint64_t data_size = 0;
      std::memcpy(&data_size, raw_.data() + raw_pos_ + header_bytes, sizeof data_size);
      length = compressed2_length(header, data_size);
      if (length == 0)
        return fail(offset, "COMPRESSED2 record: data_size " + std::to_string(data_size) +
                                " does not fit its size " + std::to_string(header.size));
      if (length > raw_.size())
        return fail(offset, "COMPRESSED2 record of " + std::to_string(length) +
                                " bytes is larger than the read buffer (" +
                                std::to_string(raw_.size()) + ")");
    } else if (header.size < header_bytes) {
      return fail(offset, "record size " + std::to_string(header.size) +
                              " is smaller than its 8-byte header (type " +
                              std::to_string(header.type) + ")");
    }
    if (length > left)
      return fail(offset,
                  "record of size " + std::to_string(length) + " runs past the end of the data (" +
                      std::to_string(left) + " bytes left, type " + std::to_string(header.type) +
                      ")",
                  true);
    fill(static_cast<std::size_t>(length));
    std::span<const std::byte> whole{raw_.data() + raw_pos_, static_cast<std::size_t>(length)};
    raw_pos_ += static_cast<std::size_t>(length);
    bool packed = header.type == record_compressed || header.type == record_compressed2;
    if (!packed || !options_.expand_compressed) return walked_record{header, whole, offset};

    ++compressed_records_;
    if (!zstd_) zstd_.emplace();
    // Drop what was handed out so the buffer does not grow with the stream.
    plain_.erase(plain_.begin(), plain_.begin() + static_cast<std::ptrdiff_t>(plain_pos_));
    plain_pos_ = 0;
    plain_origin_ = offset;
    pieces_.assign(1, whole.subspan(header_bytes));
    if (header.type == record_compressed2) {
      std::uint64_t data_size = 0;
      std::memcpy(&data_size, whole.data() + header_bytes, sizeof data_size);
      if (!compressed2_pieces(whole.subspan(compressed2_prefix, data_size), pieces_))
        return fail(offset, "COMPRESSED2 record of " + std::to_string(length) +
                                " bytes: the zstd chunks perf wrote into it were not found");
    }
    try {
      for (std::span<const std::byte> piece : pieces_) zstd_->feed(piece, plain_);
    } catch (const std::runtime_error& error) {
      return fail(offset, std::string("corrupt COMPRESSED record: ") + error.what());
    }
  }
}

}  // namespace arec::perf_data
