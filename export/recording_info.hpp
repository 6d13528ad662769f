// recording_info: what the export needs from a recording's header features: the build-ids it
// lists per file (BUILD_ID) and how its sample clock maps to the wall clock (CLOCK_DATA).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>

#include "io/build_id.hpp"
#include "io/perf_data/feature_encoder.hpp"

namespace arec::exporting {

// The BUILD_ID feature's entries by file name (layout: io/perf_data/feature_encoder.hpp).
// Malformed entries end the list.
std::unordered_map<std::string, io::build_id> recorded_build_ids(
    const io::perf::feature_set& features);

// wall clock ns - sample clock ns, from CLOCK_DATA (recordings made with -k), or nullopt.
std::optional<std::int64_t> wall_clock_offset(const io::perf::feature_set& features);

}  // namespace arec::exporting
