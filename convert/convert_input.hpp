// convert_input: what `arec convert` reads — a single perf.data file or a data directory
// (PATH/data + PATH/data.N) — validated up front: header, attrs and ids, feature payloads, and
// the list of data ranges to merge. In salvage mode an unfinished or cut header file is accepted.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "io/unique_fd.hpp"
#include "perf_data/feature_encoder.hpp"
#include "perf_data/format_error.hpp"
#include "perf_data/perf_abi.hpp"
#include "perf_data/record_walker.hpp"

namespace arec::convert {

struct convert_input {
  std::string path;         // as given
  std::string header_path;  // path itself, or path + "/data", or the spool's /proc/self/fd path
  bool directory = false;
  perf_data::file_header header{};
  std::vector<perf_data::event_entry> events;  // attrs (size <= 128) with ids, names if known
  perf_data::feature_set features;             // every feature payload of the header file
  // The header file's data section first, then data.0, data.1, ... in numeric order.
  std::vector<perf_data::data_range> ranges;
  // Salvage only: what was wrong with the header file and how it was worked around.
  std::vector<std::string> salvage_notes;
  // Salvage of a recording without EVENT_DESC (arec killed): how many leading events got a
  // name from their attr (event_names.hpp), for the output's EVENT_DESC; else 0.
  std::size_t salvaged_names = 0;
  // A stream read from standard input (`-`) or a FIFO, copied here to be read like a file.
  io::unique_fd spool;
  std::uint64_t total_bytes() const;
  // `text` ("FILE: offset N: ...") with the spool's name replaced by `path` ("-" or the FIFO),
  // as the user knows it; `error` rethrown so.
  std::string as_given(const std::string& text) const;
  [[noreturn]] void rethrow_as_given(const perf_data::format_error& error) const;
};

// Reads the header of `path` (a file, or a directory holding `data`) and lists the data ranges.
// `path` "-" (standard input) or a FIFO is read to its end into an unlinked file in `spool_dir`
// first, then read like a file: a pipe stream, as perf reads `-i -`. Anything else that is not
// a regular file or a directory (a device, a socket) is a format_error at offset 0.
// Throws perf_data::format_error "FILE: offset N: PROBLEM" for: a file too short for the header,
// a bad magic, pipe or other-endian files, a header or attr size that is wrong, an attrs, ids,
// data or feature section outside the file, an unfinished recording (data size 0 with records
// after the header) unless `salvage`, a directory without data.N files or with a gap in their
// numbers (the missing one is named, offset 0). In salvage mode a data size of 0 or past the end
// of the file means "up to the end of the file" and the features are dropped, missing data.N
// files are skipped; the notes say so. Salvage names the events of a file without EVENT_DESC
// from their attrs (name_salvaged_events).
// Throws std::system_error when a file cannot be opened or read.
convert_input open_convert_input(const std::string& path, bool salvage,
                                 const std::string& spool_dir = "/tmp");

}  // namespace arec::convert
