// perf_header: the one reader and validator of a perf.data file's header (the header, the attrs
// with their ids and names, every feature payload), used by everything that reads a recording:
// perf_file_reader (tests, round trips), `arec convert` and its --salvage, and the fuzzer.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "perf_data/feature_encoder.hpp"
#include "perf_data/format_error.hpp"
#include "perf_data/perf_abi.hpp"

namespace arec::perf_data {

enum class header_mode {
  strict,   // any malformation is a format_error
  salvage,  // what a killed recording or a full disk leaves is worked around, with notes
};

struct perf_header {
  std::string path;
  std::uint64_t file_size = 0;
  // A pipe-mode stream's (arec -o -, perf record -o -) has size 16 and its data section set to
  // the records after the stream's head.
  file_header header{};
  bool pipe = false;
  std::vector<event_entry> events;  // attrs (size <= 128) with ids; names from EVENT_DESC
  feature_set features;             // every feature payload
  // Salvage only: what was wrong and how it was worked around, one "FILE: offset N: ..." each.
  std::vector<std::string> salvage_notes;
};

// Reads and validates the header of the perf.data file `path` with positioned reads (the data
// section is not read). Throws format_error "FILE: offset N: PROBLEM" for: a file too short for
// the header, a bad magic, other-endian files, a header or attr size that is wrong,
// no attrs, an attrs, ids, data or feature section outside the file, an unfinished recording
// (data size 0 with records after the header), a malformed EVENT_DESC. In salvage mode a data
// size of 0 or past the end of the file means "up to the end of the file" and the features
// are dropped, a feature outside the file or a malformed EVENT_DESC is dropped; notes say so.
// A pipe-mode stream is read from its head's records instead (pipe_head.hpp).
// Throws std::system_error when the file cannot be opened or read.
perf_header read_perf_header(const std::string& path, header_mode mode);

// The file holding the header of the recording at `path`: `path` itself, or `path`/data when it
// is a data directory (--threads, perf record --threads). Throws std::system_error when `path`
// cannot be stat'ed.
std::string recording_header_path(const std::string& path);

}  // namespace arec::perf_data
