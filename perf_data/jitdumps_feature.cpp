#include "perf_data/jitdumps_feature.hpp"

#include <cmath>
#include <cstdint>
#include <limits>

#include "perf_data/byte_cursor.hpp"
#include "perf_data/feature_encoder.hpp"
#include "perf_data/format_error.hpp"

namespace arec::perf_data {
namespace {

constexpr std::uint32_t payload_version = 1;

}  // namespace

std::vector<std::byte> jitdumps_payload(const file_clocks& clocks,
                                        std::span<const stored_jitdump> dumps) {
  std::vector<const stored_jitdump*> fitting;
  perf_maps_room room;
  for (const stored_jitdump& dump : dumps)
    if (room.take(dump.dump)) fitting.push_back(&dump);
  feature_encoder out;
  out.u32(payload_version);
  out.u32(static_cast<std::uint32_t>(fitting.size()));
  for (const clock_pair& pair : {clocks.start, clocks.end}) {
    out.u64(pair.monotonic_ns);
    out.u64(pair.recording_ns);
  }
  for (const stored_jitdump* dump : fitting) {
    out.u64(dump->left_out);
    put_stored_perf_map(out, dump->dump);
  }
  return out.take();
}

captured_jitdumps parse_jitdumps_payload(std::span<const std::byte> payload, std::uint64_t base,
                                         std::string_view file) {
  byte_cursor in(payload, base, "the jitdump feature", file);
  if (in.value<std::uint32_t>() != payload_version)
    throw format_error(file, base, "the jitdump feature has an unknown version");
  auto count = in.value<std::uint32_t>();
  captured_jitdumps out;
  for (clock_pair* pair : {&out.clocks.start, &out.clocks.end}) {
    pair->monotonic_ns = in.value<std::uint64_t>();
    pair->recording_ns = in.value<std::uint64_t>();
  }
  std::uint64_t bytes_left = max_perf_map_bytes;
  for (std::uint32_t i = 0; i < count; ++i) {
    captured_jitdump dump;
    dump.left_out = in.value<std::uint64_t>();
    captured_perf_map entry =
        take_stored_perf_map(in, bytes_left, "jitdump", "jitdump feature", file);
    dump.pid = entry.pid;
    dump.bytes = std::move(entry.text);
    out.dumps.push_back(std::move(dump));
  }
  return out;
}

std::optional<std::uint64_t> recording_time(const file_clocks& clocks, std::uint64_t monotonic_ns) {
  constexpr std::uint64_t signed_max = std::numeric_limits<std::int64_t>::max();
  // A pair is of use when both its times are known and no larger than any clock reaches.
  auto usable = [](const clock_pair& pair) {
    return pair.monotonic_ns != 0 && pair.recording_ns != 0 && pair.monotonic_ns <= signed_max &&
           pair.recording_ns <= signed_max;
  };
  auto offset = [](const clock_pair& pair) {  // recording - monotonic
    return static_cast<std::int64_t>(pair.recording_ns) -
           static_cast<std::int64_t>(pair.monotonic_ns);
  };
  const clock_pair& start = clocks.start;
  const clock_pair& end = clocks.end;
  if (monotonic_ns > signed_max) return std::nullopt;
  std::int64_t shift = 0;
  if (usable(start) && usable(end) && start.monotonic_ns < monotonic_ns &&
      monotonic_ns < end.monotonic_ns) {
    // The drift is small, the span long: the product is taken in long double (64-bit mantissa).
    long double part = static_cast<long double>(monotonic_ns - start.monotonic_ns) /
                       static_cast<long double>(end.monotonic_ns - start.monotonic_ns);
    shift =
        offset(start) + std::llround(static_cast<long double>(offset(end) - offset(start)) * part);
  } else if (usable(start) && (!usable(end) || monotonic_ns <= start.monotonic_ns)) {
    shift = offset(start);
  } else if (usable(end)) {
    shift = offset(end);
  } else {
    return std::nullopt;
  }
  std::int64_t time = 0;
  if (__builtin_add_overflow(static_cast<std::int64_t>(monotonic_ns), shift, &time) || time < 0)
    return std::nullopt;
  return static_cast<std::uint64_t>(time);
}

}  // namespace arec::perf_data
