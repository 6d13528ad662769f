// pipe_head: reads the head of a pipe-mode stream saved to a file (arec -o - > f, perf record
// -o - > f): the records that stand for a file's header, the attrs with their ids
// (HEADER_ATTR), the features (HEADER_FEATURE, HEADER_TRACING_DATA and its blob,
// HEADER_BUILD_ID) and the event names (EVENT_UPDATE), up to the first other record, where the
// data begins. Layouts: docs/perf-data-format.md, "Pipe mode".
#pragma once

#include "perf_data/header_file.hpp"
#include "perf_data/perf_header.hpp"

namespace arec::perf_data {

// Fills `input` (pipe, header.data, events, features) from `file`, whose 16-byte pipe header
// has been checked. Throws format_error for a head record that is malformed or runs past the
// end of the file, and for a stream without attrs; with `salvage`, a record cut by the end of
// the file ends the head (and the data) there, with a note.
void read_pipe_head(const header_file& file, perf_header& input, bool salvage);

}  // namespace arec::perf_data
