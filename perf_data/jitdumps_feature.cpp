#include "perf_data/jitdumps_feature.hpp"

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

}  // namespace arec::perf_data
