// container_ids_feature: the container each sampled process ran in (host/container_id, read from
// /proc/PID/cgroup while it lived), kept in the recording in a feature section of arec's own
// (bit 254, beside the perf maps' 255; perf and hotspot pass over both), so that export and
// --push label samples with their container without --all-cgroups. docs/perf-data-format.md,
// "arec's own features". Layout: u32 version (1), u32 count, then per process: u32 pid and the
// id as a perf string.
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace arec::perf_data {

struct process_container {
  pid_t pid = 0;
  std::string id;  // 64 hex digits
};

std::vector<std::byte> container_ids_payload(std::span<const process_container> processes);

// Throws format_error (naming `file`, offsets from `base`) when the payload is malformed.
std::vector<process_container> parse_container_ids_payload(std::span<const std::byte> payload,
                                                           std::uint64_t base,
                                                           std::string_view file);

}  // namespace arec::perf_data
