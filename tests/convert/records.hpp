// records: small perf records and attrs built by hand for the converter's tests.
#pragma once

#include <linux/perf_event.h>

#include <cstdint>
#include <cstring>
#include <vector>

#include "io/perf_data/feature_encoder.hpp"
#include "io/perf_data/perf_abi.hpp"

namespace arec::convert::test_records {

inline constexpr std::uint64_t sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
                                      PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD |
                                      PERF_SAMPLE_IDENTIFIER;

inline io::perf::event_entry event(std::uint64_t type, std::vector<std::uint64_t> ids) {
  io::perf::event_entry entry;
  entry.attr.size = sizeof entry.attr;
  entry.attr.sample_type = type;
  entry.attr.sample_id_all = 1;
  entry.ids = std::move(ids);
  return entry;
}

template <typename... Words>
inline std::vector<std::byte> record(std::uint32_t type, Words... words) {
  std::vector<std::uint64_t> body{static_cast<std::uint64_t>(words)...};
  std::vector<std::byte> out(8 + 8 * body.size());
  io::perf::record_header header{type, 0, static_cast<std::uint16_t>(out.size())};
  std::memcpy(out.data(), &header, sizeof header);
  if (!body.empty()) std::memcpy(out.data() + 8, body.data(), 8 * body.size());
  return out;
}

}  // namespace arec::convert::test_records
