// perf_file_writer: lays out one single-file perf.data (header, ids, attrs, data, feature
// table and payloads) on a file descriptor it does not own, with positioned writes.
// Layout and crash tolerance: docs/perf-data-format.md, "File layout", "Attribute entries",
// "Write order and crashes".
#pragma once

#include <cstdint>
#include <span>
#include <string>

#include "perf_data/feature_encoder.hpp"
#include "perf_data/perf_abi.hpp"

namespace arec::perf_data {

class perf_file_writer {
 public:
  // `fd` must be open for writing and seekable; it must outlive the writer. `name` (the path,
  // usually) is only used in error messages.
  explicit perf_file_writer(int fd, std::string name = {});

  // Writes the ids arrays at offset 104, the attrs section (attr.size forced to 128, header
  // attr_size 144) and a header with data.size 0 and no feature bits, so that a file cut short
  // later can still be salvaged. Returns the (8-aligned) offset where the data section starts;
  // the caller writes records there itself. Throws std::system_error when a write fails.
  std::uint64_t write_prologue(std::span<const event_entry> events);

  // Records `data_size` in the header without writing features: the periodic crash-safety
  // update. Throws std::logic_error before write_prologue, std::system_error on write failure.
  void update_data_size(std::uint64_t data_size);

  // Writes the feature table at data_offset + data_size, the payloads right after it in bit
  // order, then the final header with data.size and the feature bits. Throws like
  // update_data_size.
  void write_epilogue(std::uint64_t data_size, const feature_set& features);

  std::uint64_t data_offset() const { return header_.data.offset; }
  const file_header& header() const { return header_; }

 private:
  void write_at(std::span<const std::byte> bytes, std::uint64_t offset);
  void write_header();
  void require_prologue(const char* operation) const;

  int fd_;
  std::string name_;
  file_header header_{};
  bool prologue_written_ = false;
};

}  // namespace arec::perf_data
