#include "record/streaming/record_scan.hpp"

#include <linux/perf_event.h>

#include <algorithm>
#include <cstring>

#include "perf_data/perf_abi.hpp"

namespace arec::record {
namespace {

std::uint64_t read_u64(const ring_chunk& chunk, std::size_t offset) {
  return chunk.load_aligned<std::uint64_t>(offset);
}

bool needs_mending(const perf_data::record_header& header, record_fixups fixups) {
  return fixups.clear_leaked_build_id_flags && header.type == PERF_RECORD_MMAP2 &&
         (header.misc & PERF_RECORD_MISC_MMAP_BUILD_ID);
}

bool is_dropped_sample(std::uint64_t id, const record_fixups& fixups) {
  return std::binary_search(fixups.dropped_sample_ids.begin(), fixups.dropped_sample_ids.end(), id);
}

bool is_dropped_switch(std::uint32_t type, const record_fixups& fixups) {
  return fixups.drop_switches &&
         (type == PERF_RECORD_SWITCH || type == PERF_RECORD_SWITCH_CPU_WIDE);
}

}  // namespace

bool scan_records(const ring_chunk& chunk, stream_stats& stats, std::size_t sample_time_offset,
                  record_fixups fixups) {
  bool mend = false;
  std::size_t size = chunk.size();
  std::size_t offset = 0;
  while (offset + sizeof(perf_data::record_header) <= size) {
    auto header = chunk.load_aligned<perf_data::record_header>(offset);
    if (header.size < sizeof header || offset + header.size > size) break;
    const std::size_t body = offset + sizeof header;
    switch (header.type) {
      case PERF_RECORD_SAMPLE: {
        if (!fixups.dropped_sample_ids.empty() &&
            is_dropped_sample(read_u64(chunk, body + fixups.sample_id_offset), fixups)) {
          mend = true;
          break;
        }
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
      case PERF_RECORD_SWITCH:
      case PERF_RECORD_SWITCH_CPU_WIDE:
        mend = mend || fixups.drop_switches;
        break;
      default:
        break;
    }
    offset += header.size;
  }
  stats.bytes_in += size;
  return mend;
}

std::size_t mend_records(std::span<std::byte> records, record_fixups fixups) {
  std::size_t offset = 0, kept = 0;
  while (offset + sizeof(perf_data::record_header) <= records.size()) {
    perf_data::record_header header;
    std::memcpy(&header, records.data() + offset, sizeof header);
    if (header.size < sizeof header || offset + header.size > records.size()) break;
    std::size_t size = header.size;
    bool dropped = is_dropped_switch(header.type, fixups);
    if (header.type == PERF_RECORD_SAMPLE && !fixups.dropped_sample_ids.empty()) {
      std::uint64_t id;
      std::memcpy(&id, records.data() + offset + sizeof header + fixups.sample_id_offset,
                  sizeof id);
      dropped = is_dropped_sample(id, fixups);
    }
    if (!dropped) {
      if (needs_mending(header, fixups)) {
        header.misc &= ~PERF_RECORD_MISC_MMAP_BUILD_ID;
        std::memcpy(records.data() + offset, &header, sizeof header);
      }
      if (kept != offset) std::memmove(records.data() + kept, records.data() + offset, size);
      kept += size;
    }
    offset += size;
  }
  // A partial record at the end (never in a drained chunk) is kept as it was.
  if (offset < records.size()) {
    std::memmove(records.data() + kept, records.data() + offset, records.size() - offset);
    kept += records.size() - offset;
  }
  return kept;
}

}  // namespace arec::record
