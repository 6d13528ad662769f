// record_walker: the one reader of perf record streams. It walks the records of one data range
// of one file (a perf.data data section or a whole data.N file) in file order, read with pread
// through a fixed buffer, checks each record's framing before handing it out and, unless told
// not to, expands COMPRESSED records in place with one zstd stream per file. The converter,
// salvage, the fuzzer and perf_file_reader (the tests' reader) all walk records with it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "io/unique_fd.hpp"
#include "perf_data/decompressor.hpp"
#include "perf_data/perf_abi.hpp"

namespace arec::perf_data {

// Where a source's bytes are: [begin, end) of `path`.
struct data_range {
  std::string path;
  std::uint64_t begin = 0;
  std::uint64_t end = 0;
};

// The point where a damaged range stopped being read (salvage mode).
struct walk_damage {
  std::uint64_t offset = 0;   // of the bad record (of its COMPRESSED record when inside one)
  std::string problem;        // the format_error text without "FILE: offset N: "
  std::uint64_t dropped = 0;  // bytes of the range from `offset` on that were not used
};

// One record as read: valid until the next call to next().
struct walked_record {
  record_header header;
  // The whole record, header included. Its size is header.size but for a COMPRESSED2 record
  // handed out unexpanded, whose size field perf's writer may have let wrap (and which has
  // no padding then): bytes.size() is what it takes in the file.
  std::span<const std::byte> bytes;
  std::uint64_t offset;  // its file offset, or its COMPRESSED record's
};

struct walk_options {
  bool salvage = false;                // end the walk at damage instead of throwing (damage())
  bool expand_compressed = true;       // hand out what COMPRESSED(2) records hold, not the records
  std::size_t buffer_bytes = 1 << 20;  // the read buffer; at least two maximal records
};

class record_walker {
 public:
  // Opens range.path. Throws std::system_error when the file cannot be opened.
  static record_walker open(data_range range, const walk_options& options = {});

  record_walker(record_walker&&) noexcept = default;
  record_walker& operator=(record_walker&&) noexcept = default;

  // The next record (COMPRESSED ones replaced by what they hold), or nullopt at the end.
  // A malformed record (size below 8, running past the end of the range, a corrupt zstd frame,
  // a zstd stream ending inside a record) throws format_error "PATH: offset N: ..."
  // — or, when salvaging, ends the source there and is described by damage().
  // Allocates nothing per record once the buffers have grown to their working size.
  std::optional<walked_record> next();

  const std::string& path() const noexcept { return range_.path; }
  const std::optional<walk_damage>& damage() const noexcept { return damage_; }
  // Bytes of the range consumed so far, for progress and throughput.
  std::uint64_t bytes_read() const noexcept { return raw_offset() - range_.begin; }
  std::uint64_t size() const noexcept { return range_.end - range_.begin; }
  // COMPRESSED records met so far.
  std::uint64_t compressed_records() const noexcept { return compressed_records_; }

 private:
  record_walker(data_range range, io::unique_fd fd, const walk_options& options);

  std::uint64_t raw_offset() const noexcept { return raw_base_ + raw_pos_; }
  // Makes `count` bytes from raw_pos_ available (count must be <= what the range still holds).
  void fill(std::size_t count);
  std::optional<walked_record> next_decompressed();
  // Throws, or records the damage and ends the source; returns nullopt for the caller to return.
  // `cut`: the range ends inside a record, which salvage handles (the error says so).
  std::nullopt_t fail(std::uint64_t offset, std::string problem, bool cut = false);

  data_range range_;
  io::unique_fd fd_;
  walk_options options_;
  bool ended_ = false;
  std::optional<walk_damage> damage_;

  std::vector<std::byte> raw_;  // bytes of the file from raw_base_
  std::uint64_t raw_base_ = 0;  // file offset of raw_[0]
  std::size_t raw_pos_ = 0;     // next unread byte in raw_
  std::size_t raw_end_ = 0;     // bytes of raw_ holding file data

  std::optional<decompressor> zstd_;  // created at the first COMPRESSED record
  std::vector<std::byte> plain_;      // decompressed bytes not handed out yet, from plain_pos_
  std::vector<std::span<const std::byte>> pieces_;  // a COMPRESSED(2) record's zstd data
  std::size_t plain_pos_ = 0;
  std::uint64_t plain_origin_ = 0;  // offset of the COMPRESSED record plain_ came from
  std::uint64_t compressed_records_ = 0;
};

}  // namespace arec::perf_data
