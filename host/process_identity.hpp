// process_identity: a process told apart from a later one that got its pid. The kernel gives
// each process its start time (in clock ticks since boot, /proc/PID/stat's 22nd field), which a
// reused pid does not share, so (pid, start time) names one process for as long as the machine
// runs.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string_view>

#include "host/mapped_file.hpp"

namespace arec::host {

// The start time in a /proc/PID/stat text: the 22nd field, counted after the ")" that ends the
// name (which may hold spaces and parentheses). nullopt when the text is not one.
std::optional<std::uint64_t> start_time_in_stat(std::string_view stat);

// The start time of process `pid` now; nullopt when it is gone.
std::optional<std::uint64_t> process_start_time(pid_t pid, const proc_root& proc = {});

}  // namespace arec::host
