// perf_maps_feature: the perf maps of JIT runtimes (host/process_perf_map) kept in the recording
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

#include "perf_data/byte_cursor.hpp"
#include "perf_data/feature_encoder.hpp"
#include "perf_data/feature_limits.hpp"

namespace arec::perf_data {

struct captured_perf_map {
  pid_t pid = 0;     // on the recording's host (the pid samples carry)
  std::string text;  // the map's text as it was when captured
};

// The most text the maps of one file may hold together (so also one map, in the file and when
// read from /tmp), and its feature section is at most max_feature_bytes: the writer leaves out
// what would not fit (perf_maps_room), so every reader accepts what it wrote.
inline constexpr std::size_t max_perf_map_bytes = max_feature_bytes;

// One map as the feature stores it: its text compressed once, so that a recorder writing the
// same map into file after file (rotation, --push windows) compresses it once per change.
struct stored_perf_map {
  pid_t pid = 0;
  std::uint64_t text_size = 0;
  std::vector<std::byte> frame;  // the text as one zstd frame
};
stored_perf_map store_perf_map(pid_t pid, std::string_view text);

// The room left in one file's perf-map feature.
class perf_maps_room {
 public:
  // True, and `map` counted, when it still fits: its text within max_perf_map_bytes of all
  // the maps', the section within max_feature_bytes.
  bool take(const stored_perf_map& map);
  // Whether a map of `text_bytes` could still fit (its frame not counted yet).
  bool has_text_room(std::uint64_t text_bytes) const {
    return text_bytes <= max_perf_map_bytes - text_;
  }

 private:
  std::uint64_t text_ = 0;
  std::uint64_t section_ = 8;  // version and count
};

// The feature of `maps`, in order; a map that does not fit (perf_maps_room) is left out:
// callers that must say what they left out pick with perf_maps_room first.
std::vector<std::byte> perf_maps_payload(std::span<const stored_perf_map> maps);
std::vector<std::byte> perf_maps_payload(std::span<const captured_perf_map> maps);

// One stored map as an entry of the feature (u32 pid, u32 0, u64 text bytes, u64 stored bytes,
// the frame, zeros up to a multiple of 8); also the entry of each dump in the jitdump feature.
void put_stored_perf_map(feature_encoder& out, const stored_perf_map& map);
// The entry at `in`, decompressed; its text counted against `text_left`. Throws format_error
// naming the `item` ("perf map") of the `feature` ("perf-map feature") when it is malformed or
// its text is more than `text_left`.
captured_perf_map take_stored_perf_map(byte_cursor& in, std::uint64_t& text_left,
                                       std::string_view item, std::string_view feature,
                                       std::string_view file);

// The maps of a payload; throws format_error (naming `file` and the offset from `base`) when
// it is malformed or its maps hold more than max_perf_map_bytes of text together.
std::vector<captured_perf_map> parse_perf_maps_payload(std::span<const std::byte> payload,
                                                       std::uint64_t base, std::string_view file);

}  // namespace arec::perf_data
