// pipe_stream: the head of a pipe-mode perf.data stream (`arec -o -`), which has no header to
// come back to: the 16-byte pipe header, then what a file keeps in its header as records —
// HEADER_ATTR per event, HEADER_FEATURE per feature and the end of the list, EVENT_UPDATE with
// each event's name, and HEADER_TRACING_DATA for tracepoints. The records that follow are the
// same as in a file. Layouts: docs/perf-data-format.md, "Pipe mode".
#pragma once

#include <cstddef>
#include <span>
#include <vector>

#include "perf_data/feature_encoder.hpp"

namespace arec::perf_data {

// Whether perf synthesizes `bit` into a pipe stream at the start. perf 6.1 leaves out
// TRACING_DATA (a record of its own), BUILD_ID, BRANCH_STACK, AUXTRACE, STAT, CACHE, DIR_FORMAT
// and HYBRID_TOPOLOGY.
bool travels_in_pipe(feature bit);

// The stream head for `events` and `features`: pipe header, HEADER_ATTRs, the HEADER_FEATUREs
// of the features that travel in a pipe (in bit order) and the end marker, one EVENT_UPDATE
// name per event that has ids, and, when `features` holds TRACING_DATA, its
// HEADER_TRACING_DATA record with the blob padded to 8 bytes.
std::vector<std::byte> pipe_stream_head(std::span<const event_entry> events,
                                        const feature_set& features);

}  // namespace arec::perf_data
