// cgroups: the CGROUP records perf synthesizes with --all-cgroups for the cgroups that exist
// when recording starts (the kernel writes records only for cgroups created later), so that
// perf report and perf script can name the cgroup of every sample.
#pragma once

#include <cstddef>
#include <string>

#include "io/record_sink.hpp"

namespace arec::record {

// One CGROUP record per cgroup under `mount` (the root as "/"), parents first, each with a
// zero sample_id trailer of `sample_id_size` bytes. Returns the number written. Throws
// std::system_error when the mount cannot be read, and whatever the sink throws.
std::size_t synthesize_cgroups(io::record_sink& sink, const std::string& mount,
                               std::size_t sample_id_size);

}  // namespace arec::record
