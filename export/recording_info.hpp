// recording_info: what the export needs from a recording's header features: the build-ids it
// lists per file (BUILD_ID), the JIT perf maps arec captured, and how its sample clock maps to
// the wall clock (CLOCK_DATA).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "perf_data/build_id.hpp"
#include "perf_data/container_ids_feature.hpp"
#include "perf_data/feature_encoder.hpp"
#include "perf_data/jitdumps_feature.hpp"
#include "perf_data/perf_maps_feature.hpp"
#include "symbols/jit_code_timeline.hpp"

namespace arec::exporting {

// The BUILD_ID feature's entries by file name (layout: perf_data/feature_encoder.hpp).
// Malformed entries end the list.
std::unordered_map<std::string, perf_data::build_id> recorded_build_ids(
    const perf_data::feature_set& features);

// The code of each captured jitdump whose times can be placed on the samples' clock, by time
// (symbols/jit_code_timeline), and how many dumps' times cannot (the CPU's counter, or no clock
// pair): those are perf-map lines (recorded_jit::perf_maps).
struct process_jit_code {
  pid_t pid = 0;
  symbols::jit_code_timeline code;
};
struct jit_code_by_time {
  std::vector<process_jit_code> processes;
  std::uint64_t untimed_dumps = 0;
  perf_data::captured_jitdumps dumps;  // all of them, for their unwinding information
};

// What names a recording's JIT code, each feature decompressed and parsed once:
// - perf_maps: the perf maps arec captured while recording (perf_data/perf_maps_feature). A
//   process with a captured jitdump (perf_data/jitdumps_feature) has an entry too; the
//   functions of a dump whose times cannot be placed are lines of its map, after the map's
//   own: where both name code, the dump does, and where code was reused, the record written
//   last. None for a recording of perf's or a damaged feature.
// - by_time: the code of the dumps whose times can be placed.
struct recorded_jit {
  std::vector<perf_data::captured_perf_map> perf_maps;
  jit_code_by_time by_time;
};
recorded_jit recorded_jit_names(const perf_data::feature_set& features);

// The containers of the sampled processes arec noted while recording; none for a recording of
// perf's or a damaged feature.
std::vector<perf_data::process_container> recorded_containers(
    const perf_data::feature_set& features);

// wall clock ns - sample clock ns, from CLOCK_DATA (recordings made with -k), or nullopt.
std::optional<std::int64_t> wall_clock_offset(const perf_data::feature_set& features);

// The wall-clock window [start, end] in ns of samples taken from `first` to `last` (sample
// clock): exact with a CLOCK_DATA `offset`; otherwise it ends at `file_end_ns` (when the header
// file was last written) and starts (last - first) before that. Corrupt times (a sample time
// near 2^64) never overflow: a window the offset cannot place is placed by `file_end_ns`, and
// a span longer than the time since the epoch starts at the epoch.
std::pair<std::int64_t, std::int64_t> sample_wall_window(std::uint64_t first, std::uint64_t last,
                                                         std::optional<std::int64_t> offset,
                                                         std::int64_t file_end_ns);

}  // namespace arec::exporting
