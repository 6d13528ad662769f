// record_scan: reads the headers of the records in a drained chunk (never their payload,
// except a sample's time and a loss count) to keep the counters of the summary.
#pragma once

#include "record/ring_reader.hpp"
#include "record/stream_stats.hpp"

namespace arec::record {

// Adds the samples, losses and sample times of every record in `chunk` to `stats`.
void scan_records(const ring_chunk& chunk, stream_stats& stats);

}  // namespace arec::record
