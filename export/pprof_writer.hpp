// pprof_writer: a profile encoded as pprof (profile.proto) and gzipped, as pprof tools and
// fleet profilers (Pyroscope, Parca) read it.
#pragma once

#include <cstddef>
#include <vector>

#include "export/profile.hpp"

namespace arec::exporting {

// The serialized Profile message, uncompressed.
std::vector<std::byte> pprof_message(const profile& source);
// Renames the sample and period types whose names hold characters other than letters, digits,
// '_' and ':' (cpu-clock, offcpu-time) with '_' in their place: Parca makes a PromQL selector of
// them, where a '-' fails the whole window. The strings they had stay for whatever else uses them.
void use_metric_safe_type_names(profile& p);

// `data` as one gzip member (zlib, default level). Throws std::runtime_error if zlib fails.
std::vector<std::byte> gzip(const std::vector<std::byte>& data);

}  // namespace arec::exporting
