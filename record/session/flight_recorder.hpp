// flight_recorder: what --overwrite decides for a recording: which processes are described
// again before each snapshot (record/option_combinations says which options it refuses).
#pragma once

#include <sys/types.h>

#include <optional>
#include <vector>

#include "record/record_options.hpp"

namespace arec::record {

// The processes whose tasks and maps are read again from /proc before a snapshot: the side-band
// records that described them may have been overwritten by then. Those -p, -t or -u named, or
// the workload when it is what is recorded, else (-a, -C) every process. Described as -p's
// are (COMM and MMAP2, no FORK): a FORK of a task that is exiting, whose maps /proc no longer
// shows, would make perf replace the maps it has for it by its parent's.
std::vector<pid_t> processes_to_describe(const std::vector<pid_t>& targets,
                                         std::optional<pid_t> workload_target);

}  // namespace arec::record
