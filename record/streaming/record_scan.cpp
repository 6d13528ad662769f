#include "record/streaming/record_scan.hpp"

#include <linux/perf_event.h>

#include <cstring>

#include "io/perf_data/perf_abi.hpp"

namespace arec::record {
namespace {

// Loads the 8 bytes at an 8-aligned `offset`. The wrap point is 8-aligned too (records are
// 8-byte multiples in a power-of-two ring), so such a load lies in one piece: a fixed-size copy,
// not copy_out's general one (the scan's main cost when it was).
template <typename T>
T load_aligned(const ring_chunk& chunk, std::size_t offset) {
  static_assert(sizeof(T) == 8);
  std::size_t first = chunk.pieces[0].size();
  const std::byte* at =
      offset < first ? chunk.pieces[0].data() + offset : chunk.pieces[1].data() + (offset - first);
  T value;
  std::memcpy(&value, at, sizeof value);
  return value;
}

std::uint64_t read_u64(const ring_chunk& chunk, std::size_t offset) {
  return load_aligned<std::uint64_t>(chunk, offset);
}

bool needs_mending(const io::perf::record_header& header, record_fixups fixups) {
  return fixups.clear_leaked_build_id_flags && header.type == PERF_RECORD_MMAP2 &&
         (header.misc & PERF_RECORD_MISC_MMAP_BUILD_ID);
}

}  // namespace

bool scan_records(const ring_chunk& chunk, stream_stats& stats, std::size_t sample_time_offset,
                  record_fixups fixups) {
  bool mend = false;
  std::size_t size = chunk.size();
  std::size_t offset = 0;
  while (offset + sizeof(io::perf::record_header) <= size) {
    auto header = load_aligned<io::perf::record_header>(chunk, offset);
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
      case PERF_RECORD_MMAP2:
        mend = mend || needs_mending(header, fixups);
        break;
      default:
        break;
    }
    offset += header.size;
  }
  stats.bytes_in += size;
  return mend;
}

void mend_records(std::span<std::byte> records, record_fixups fixups) {
  std::size_t offset = 0;
  while (offset + sizeof(io::perf::record_header) <= records.size()) {
    io::perf::record_header header;
    std::memcpy(&header, records.data() + offset, sizeof header);
    if (header.size < sizeof header || offset + header.size > records.size()) return;
    if (needs_mending(header, fixups)) {
      header.misc &= ~PERF_RECORD_MISC_MMAP_BUILD_ID;
      std::memcpy(records.data() + offset, &header, sizeof header);
    }
    offset += header.size;
  }
}

}  // namespace arec::record
