// perf_file_reader: one single-file perf.data, its header read and validated by
// read_perf_header (strict) and its data section mapped: header, attrs with their ids and names,
// feature payloads and the record stream. Every malformation is a format_error naming the
// file, the byte offset and what is wrong.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "perf_data/feature_encoder.hpp"
#include "perf_data/format_error.hpp"
#include "perf_data/perf_abi.hpp"
#include "perf_data/perf_header.hpp"

namespace arec::perf_data {

class perf_file_reader {
 public:
  // Maps `path` read-only and validates the header, the attrs and their ids, the feature
  // table and EVENT_DESC. Throws std::system_error when the file cannot be opened or mapped,
  // format_error when it is malformed (including pipe-mode and byte-swapped files, which this
  // reader does not handle).
  static perf_file_reader open(const std::string& path);

  const std::string& path() const { return read_.path; }
  const file_header& header() const { return read_.header; }
  // The attrs in file order with their ids; names come from EVENT_DESC (matched by index)
  // when the file has it, else they are empty. attr.size is at most sizeof(perf_event_attr).
  std::span<const event_entry> events() const { return read_.events; }
  // The payload of feature `bit`, or nullopt when its header bit is clear.
  std::optional<std::span<const std::byte>> feature(perf_data::feature bit) const;
  // The bytes of the data section.
  std::span<const std::byte> data() const;

  using record_visitor =
      std::function<void(const record_header& header, std::span<const std::byte> whole_record,
                         std::uint64_t file_offset)>;
  // Calls `visit` for each record of the data section in file order, as they are (COMPRESSED
  // records not expanded; records need not be 8-aligned), walked by record_walker. Throws
  // format_error at a record whose size is below 8 or that runs past the end of the data
  // section, after visiting the records before it.
  void for_each_record(const record_visitor& visit) const;

 private:
  struct unmapper {
    std::size_t size = 0;
    void operator()(std::byte* address) const;
  };
  using mapping = std::unique_ptr<std::byte, unmapper>;

  perf_file_reader(perf_header header, mapping bytes, std::size_t size);
  std::span<const std::byte> bytes() const { return {mapping_.get(), size_}; }

  perf_header read_;
  mapping mapping_;
  std::size_t size_ = 0;
};

}  // namespace arec::perf_data
