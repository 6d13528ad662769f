// jitdumps_feature: the jitdumps of JIT runtimes (host/jitdump) kept in the recording itself,
// as arec's feature bit 253, next to the perf maps' (perf_maps_feature): perf and hotspot pass
// over it. Each dump holds the runtime's whole records as read while it ran (a CODE_LOAD
// without its code: host::append_kept_records); the dump's
// timestamps are CLOCK_MONOTONIC (or the arch's counter, by its header's flag), so the feature
// also holds pairs of CLOCK_MONOTONIC and the recording's clock read together, as the file
// started and as it was finished, which map them onto the samples' times (the two clocks drift
// apart slowly: a reader interpolates). docs/perf-data-format.md, "arec's own features".
// Layout: u32 version (1), u32 count, the start pair and the end pair, each u64 monotonic ns and
// u64 recording-clock ns (both 0 when unknown), then per dump: u64 bytes left out (the bound),
// then the dump as a perf-map entry (put_stored_perf_map: u32 pid, u32 0, u64 bytes, u64 stored
// bytes, one zstd frame, padding).
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "perf_data/perf_maps_feature.hpp"

namespace arec::perf_data {

// CLOCK_MONOTONIC and the recording's clock, read at one instant; both 0 when unknown.
struct clock_pair {
  std::uint64_t monotonic_ns = 0;
  std::uint64_t recording_ns = 0;
  bool operator==(const clock_pair&) const = default;
};

struct stored_jitdump {
  stored_perf_map dump;        // pid, bytes, compressed once per change
  std::uint64_t left_out = 0;  // bytes of whole records the bound left out
};

struct captured_jitdump {
  pid_t pid = 0;
  std::string bytes;  // the header and whole records, CODE_LOADs without code
  std::uint64_t left_out = 0;
};

// The pairs read as the file started and as it was finished.
struct file_clocks {
  clock_pair start;
  clock_pair end;
  bool operator==(const file_clocks&) const = default;
};

// `monotonic_ns` (a dump's record time) on the recording's clock: between the two pairs by
// linear interpolation (the clocks drift apart slowly), outside them by the offset of the
// nearer pair (a slope measured over a short file would carry its error far), by the one pair
// known when the other is not. nullopt when neither is known.
std::optional<std::uint64_t> recording_time(const file_clocks& clocks, std::uint64_t monotonic_ns);

struct captured_jitdumps {
  file_clocks clocks;
  std::vector<captured_jitdump> dumps;
};

// The feature of `dumps`; a dump that would not fit (perf_maps_room: the dumps hold at most
// max_perf_map_bytes together) is left out: the capture bounds them before.
std::vector<std::byte> jitdumps_payload(const file_clocks& clocks,
                                        std::span<const stored_jitdump> dumps);

// The dumps of a payload; throws format_error (naming `file` and the offset from `base`) when
// it is malformed or its dumps hold more than max_perf_map_bytes together.
captured_jitdumps parse_jitdumps_payload(std::span<const std::byte> payload, std::uint64_t base,
                                         std::string_view file);

}  // namespace arec::perf_data
