// convert_output: the perf.data file `arec convert` writes — under a temporary name next to the
// destination, renamed into place only once complete, removed if anything fails before that.
// Records are appended in batches, each batch followed by a FINISHED_ROUND, optionally
// recompressed into COMPRESSED records.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "io/plain_writer.hpp"
#include "io/published_file.hpp"
#include "perf_data/compressor.hpp"
#include "perf_data/feature_encoder.hpp"
#include "perf_data/perf_file_writer.hpp"

namespace arec::convert {

class convert_output {
 public:
  // Uncompressed bytes per batch: one FINISHED_ROUND (and one zstd flush) per batch.
  static constexpr std::size_t batch_bytes = 256 * 1024;
  // The COMPRESSED feature's mmap_len: what perf allocates to decompress one record's payload.
  static constexpr std::uint32_t decompression_buffer = 2 * batch_bytes;

  // Creates a temporary file (mode 0600) in the destination's directory (io/published_file,
  // publish_policy::replace) and writes the
  // header, ids and attrs of `events`. `compression_level` 0 writes plain records, 1..22
  // COMPRESSED ones. Throws std::system_error when the file cannot be created or written (the
  // temporary file is removed then).
  convert_output(const std::string& path, std::span<const perf_data::event_entry> events,
                 int compression_level);
  convert_output(const convert_output&) = delete;
  convert_output& operator=(const convert_output&) = delete;

  // Appends one whole record. Throws std::system_error on a write failure (ENOSPC...).
  // Allocates nothing.
  void append(std::span<const std::byte> record);

  // Writes the last batch, the feature table and payloads and the final header (plus the
  // COMPRESSED feature when compressing), then renames the file to its destination.
  void commit(perf_data::feature_set features);

  // Record bytes appended so far (before compression).
  std::uint64_t record_bytes() const noexcept { return record_bytes_; }
  // Bytes of the data section written so far (after compression, markers included).
  std::uint64_t data_bytes() const noexcept { return writer_.offset() - data_offset_; }

 private:
  void write_batch();
  void write(std::span<const std::span<const std::byte>> pieces);

  io::published_file file_;
  perf_data::perf_file_writer header_;
  std::uint64_t data_offset_ = 0;
  io::plain_writer writer_;
  std::optional<perf_data::compressor> compressor_;
  std::vector<std::byte> batch_;       // capacity batch_bytes, reused
  std::vector<std::byte> compressed_;  // compressor::bound(batch_bytes), reused
  std::uint64_t record_bytes_ = 0;
};

}  // namespace arec::convert
