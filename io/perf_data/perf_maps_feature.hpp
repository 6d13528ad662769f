// perf_maps_feature: the perf maps of JIT runtimes (io/process_perf_map) kept in the recording
// itself, as one feature section of arec's own (bit 255, the last of the 256-bit bitmap, far
// from perf's numbering: perf 7.1 uses up to 34). perf and hotspot read only the sections of the
// bits they know, so they pass over it; docs/perf-data-format.md, "arec's perf-map feature".
// Layout: u32 version (1), u32 count, then per map: u32 pid, u32 0, u64 text bytes, u64 stored
// bytes, the text as one zstd frame of that many bytes, zeros up to a multiple of 8.
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace arec::io::perf {

struct captured_perf_map {
  pid_t pid = 0;     // on the recording's host (the pid samples carry)
  std::string text;  // the map's text as it was when captured
};

// The most text one map may hold, in the file and when read back (as perf maps are read).
inline constexpr std::size_t max_perf_map_bytes = std::size_t{256} << 20;

// One map as the feature stores it: its text compressed once, so that a recorder writing the
// same map into file after file (rotation, --push windows) compresses it once per change.
struct stored_perf_map {
  pid_t pid = 0;
  std::uint64_t text_size = 0;
  std::vector<std::byte> frame;  // the text as one zstd frame
};
stored_perf_map store_perf_map(pid_t pid, std::string_view text);

std::vector<std::byte> perf_maps_payload(std::span<const stored_perf_map> maps);
std::vector<std::byte> perf_maps_payload(std::span<const captured_perf_map> maps);

// The maps of a payload; throws format_error (naming `file` and the offset from `base`) when
// it is malformed or a map would exceed max_perf_map_bytes.
std::vector<captured_perf_map> parse_perf_maps_payload(std::span<const std::byte> payload,
                                                       std::uint64_t base,
                                                       std::string_view file);

}  // namespace arec::io::perf
