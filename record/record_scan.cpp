#include "record/record_scan.hpp"

#include <linux/perf_event.h>

#include <cstring>

#include "io/perf_abi.hpp"
#include "record/event_attrs.hpp"

namespace arec::record {
namespace {

std::uint64_t read_u64(const ring_chunk& chunk, std::size_t offset) {
  std::uint64_t value;
  chunk.copy_out(offset, std::as_writable_bytes(std::span{&value, 1}));
  return value;
}

}  // namespace

void scan_records(const ring_chunk& chunk, stream_stats& stats) {
  std::size_t size = chunk.size();
  std::size_t offset = 0;
  // Records are 8-byte multiples and the ring size is a power of two, so a header never
  // straddles the wrap; a body may, hence copy_out for the fields read.
  while (offset + sizeof(io::perf::record_header) <= size) {
    io::perf::record_header header;
    chunk.copy_out(offset, std::as_writable_bytes(std::span{&header, 1}));
    if (header.size < sizeof header || offset + header.size > size) break;
    const std::size_t body = offset + sizeof header;
    switch (header.type) {
      case PERF_RECORD_SAMPLE: {
        ++stats.samples;
        std::uint64_t time = read_u64(chunk, body + sample_time_offset);
        stats.first_sample_time = std::min(stats.first_sample_time, time);
        stats.last_sample_time = std::max(stats.last_sample_time, time);
        break;
      }
      case PERF_RECORD_LOST:  // u64 id; u64 lost
        stats.lost += read_u64(chunk, body + 8);
        break;
      case PERF_RECORD_LOST_SAMPLES:  // u64 lost
        stats.lost += read_u64(chunk, body);
        break;
      default:
        break;
    }
    offset += header.size;
  }
  stats.bytes_in += size;
}

}  // namespace arec::record
