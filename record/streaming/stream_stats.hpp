// stream_stats: what one ring (or one streaming thread) has recorded, for the summary and the
// SAMPLE_TIME feature.
#pragma once

#include <algorithm>
#include <cstdint>
#include <limits>

namespace arec::record {

struct stream_stats {
  std::uint64_t samples = 0;
  std::uint64_t lost = 0;          // from LOST and LOST_SAMPLES records
  std::uint64_t bytes_in = 0;      // ring bytes drained
  std::uint64_t bytes_out = 0;     // bytes written to the data file
  std::uint64_t drains = 0;        // times the ring was read (each drain costs a write request)
  std::uint64_t first_sample_time = std::numeric_limits<std::uint64_t>::max();
  std::uint64_t last_sample_time = 0;

  void merge(const stream_stats& other) {
    samples += other.samples;
    lost += other.lost;
    bytes_in += other.bytes_in;
    bytes_out += other.bytes_out;
    drains += other.drains;
    first_sample_time = std::min(first_sample_time, other.first_sample_time);
    last_sample_time = std::max(last_sample_time, other.last_sample_time);
  }
};

}  // namespace arec::record
