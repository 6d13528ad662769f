// pprof_writer: a profile encoded as pprof (profile.proto) and gzipped, as pprof tools and
// fleet profilers (Pyroscope, Parca) read it.
#pragma once

#include <cstddef>
#include <vector>

#include "export/profile.hpp"

namespace arec::exporting {

// The serialized Profile message, uncompressed.
std::vector<std::byte> pprof_message(const profile& source);
// `data` as one gzip member (zlib, default level). Throws std::runtime_error if zlib fails.
std::vector<std::byte> gzip(const std::vector<std::byte>& data);

}  // namespace arec::exporting
