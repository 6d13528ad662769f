// tracefs: where the kernel's tracing files live, and tracepoint ids and formats read from it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace arec::io::tracefs {

// The mounted tracefs root: $TRACEFS_PATH, else /sys/kernel/tracing, else
// /sys/kernel/debug/tracing, each accepted only if statfs says it is tracefs.
// Returns nullopt when none is mounted.
std::optional<std::string> find_root();

// The id of tracepoint `system:event` from ROOT/events/SYSTEM/EVENT/id.
// Throws std::system_error ("open .../id: No such file or directory") when it does not exist.
std::uint64_t read_tracepoint_id(std::string_view root, std::string_view system,
                                 std::string_view event);

// The whole text of a tracefs pseudo-file (st_size is 0 there, so it reads to EOF).
std::string read_file(std::string_view root, std::string_view relative_path);

}  // namespace arec::io::tracefs
