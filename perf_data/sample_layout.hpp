// sample_layout: where an attr's sample_type puts the fields that readers find by position, the
// time in a SAMPLE and the size of the sample_id trailer of other kernel records.
// Layouts: docs/perf-data-format.md, "SAMPLE layout" and "sample_id trailer".
#pragma once

#include <linux/perf_event.h>

#include <cstddef>
#include <cstdint>

namespace arec::perf_data {

constexpr std::size_t field_bytes(std::uint64_t sample_type, std::uint64_t bit) {
  return (sample_type & bit) ? 8 : 0;
}

// Offset of TIME in a SAMPLE's body (after the record header): IDENTIFIER, IP and TID precede
// it when present. Meaningful only when PERF_SAMPLE_TIME is set.
constexpr std::size_t sample_time_offset(std::uint64_t sample_type) {
  return field_bytes(sample_type, PERF_SAMPLE_IDENTIFIER) +
         field_bytes(sample_type, PERF_SAMPLE_IP) + field_bytes(sample_type, PERF_SAMPLE_TID);
}

// Offsets of IP and of TID's (u32 pid, u32 tid) pair in a SAMPLE's body; meaningful only when
// PERF_SAMPLE_IP, respectively PERF_SAMPLE_TID, is set.
constexpr std::size_t sample_ip_offset(std::uint64_t sample_type) {
  return field_bytes(sample_type, PERF_SAMPLE_IDENTIFIER);
}
constexpr std::size_t sample_tid_offset(std::uint64_t sample_type) {
  return field_bytes(sample_type, PERF_SAMPLE_IDENTIFIER) +
         field_bytes(sample_type, PERF_SAMPLE_IP);
}

// Offset of ID (or IDENTIFIER, which comes first) in a SAMPLE's body; meaningful only when
// one of them is set.
constexpr std::size_t sample_id_offset(std::uint64_t sample_type) {
  if (sample_type & PERF_SAMPLE_IDENTIFIER) return 0;
  return sample_time_offset(sample_type) + field_bytes(sample_type, PERF_SAMPLE_TIME) +
         field_bytes(sample_type, PERF_SAMPLE_ADDR);
}

// Offsets of CPU's (u32 cpu, u32 res) pair and of PERIOD in a SAMPLE's body; meaningful only
// when PERF_SAMPLE_CPU, respectively PERF_SAMPLE_PERIOD, is set.
constexpr std::size_t sample_cpu_offset(std::uint64_t sample_type) {
  return sample_time_offset(sample_type) + field_bytes(sample_type, PERF_SAMPLE_TIME) +
         field_bytes(sample_type, PERF_SAMPLE_ADDR) + field_bytes(sample_type, PERF_SAMPLE_ID) +
         field_bytes(sample_type, PERF_SAMPLE_STREAM_ID);
}
constexpr std::size_t sample_period_offset(std::uint64_t sample_type) {
  return sample_cpu_offset(sample_type) + field_bytes(sample_type, PERF_SAMPLE_CPU);
}

// Offset of CALLCHAIN's count in a SAMPLE's body, for a sample_type without READ (whose size
// varies); meaningful only when PERF_SAMPLE_CALLCHAIN is set.
constexpr std::size_t sample_callchain_offset(std::uint64_t sample_type) {
  return sample_period_offset(sample_type) + field_bytes(sample_type, PERF_SAMPLE_PERIOD);
}

// The sample_id trailer's fields that follow TIME: ID, STREAM_ID, CPU, IDENTIFIER.
constexpr std::size_t trailer_bytes_after_time(std::uint64_t sample_type) {
  return field_bytes(sample_type, PERF_SAMPLE_ID) +
         field_bytes(sample_type, PERF_SAMPLE_STREAM_ID) +
         field_bytes(sample_type, PERF_SAMPLE_CPU) +
         field_bytes(sample_type, PERF_SAMPLE_IDENTIFIER);
}

// Bytes of the sample_id trailer with sample_id_all: TID, TIME, then the fields above.
constexpr std::size_t sample_id_trailer_size(std::uint64_t sample_type) {
  return field_bytes(sample_type, PERF_SAMPLE_TID) + field_bytes(sample_type, PERF_SAMPLE_TIME) +
         trailer_bytes_after_time(sample_type);
}

}  // namespace arec::perf_data
