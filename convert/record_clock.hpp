// record_clock: where a record keeps its timestamp, derived from the attrs' sample_type: at a
// fixed offset in SAMPLE records, inside the sample_id trailer of other kernel records.
// Layouts: docs/perf-data-format.md, "Record ids and times", "sample_id trailer", "SAMPLE layout".
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <utility>
#include <vector>

#include "perf_data/feature_encoder.hpp"

namespace arec::convert {

class record_clock {
 public:
  // `events` are the file's attrs in file order with their ids; the first attr decides where
  // the id sits (perf requires every attr to agree on that). An empty span gives a clock that
  // finds no time in any record.
  explicit record_clock(std::span<const perf_data::event_entry> events);

  // The time of `record` (a whole record, header included), or nullopt when it has none: perf's
  // own record types (>= 64), attrs without PERF_SAMPLE_TIME, non-sample records without
  // sample_id_all, records too short for the field, and the values 0 and ~0 that perf's reader
  // treats as "no time" (synthesized records). An id no attr owns is read with the first attr's
  // layout, as perf does for id 0.
  std::optional<std::uint64_t> time_of(std::span<const std::byte> record) const;
  // Where time_of reads `record`'s time (whatever its value), for a writer of a record's time.
  std::optional<std::size_t> time_offset(std::span<const std::byte> record) const;

 private:
  // Byte positions of the time in one attr's records; -1 when absent.
  struct time_layout {
    int sample_offset = -1;     // from the record start in SAMPLE records
    int trailer_from_end = -1;  // distance from the record end in other kernel records
  };

  const time_layout& layout_for(std::span<const std::byte> record, bool sample) const;

  std::vector<time_layout> layouts_;                        // per attr, file order
  std::vector<std::pair<std::uint64_t, std::size_t>> ids_;  // (id, attr index), sorted
  int sample_id_offset_ = -1;     // from the start of SAMPLE records; -1: no id there
  int trailer_id_from_end_ = -1;  // from the end of other records; -1: no id there
};

}  // namespace arec::convert
