// The BUILD_ID feature: the build-id of every DSO a recording names, written by the recorder
// and read back by `arec archive`. Layout: docs/perf-data-format.md, "BUILD_ID entries".
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "perf_data/build_id.hpp"

namespace arec::perf_data {

// One DSO in the BUILD_ID feature.
struct build_id_entry {
  std::uint16_t cpumode = 0;  // PERF_RECORD_MISC_KERNEL (1) or PERF_RECORD_MISC_USER (2)
  build_id id;
  std::string filename;
};

// Per entry u32 type 0, u16 misc cpumode|BUILD_ID_SIZE, u16 size, s32 pid -1 (the host), the 20
// build-id bytes, u8 size, 3 reserved bytes, the filename NUL-terminated and zero padded to a
// multiple of 64. Entries are written in the order given (kernel first).
std::vector<std::byte> build_id_payload(std::span<const build_id_entry> entries);

// The entries of a BUILD_ID payload found at `offset` of `file`. perf's older writers left out
// the size byte (misc without BUILD_ID_SIZE): the id is then its 20 bytes with trailing zeros
// dropped. Throws format_error "FILE: offset N: ..." for an entry that does not fit, an entry
// size too small for its header, a filename without its NUL or longer than 4096 bytes, a
// build-id size above 20 (perf 6.1 overflows its buffers on those two).
std::vector<build_id_entry> parse_build_id_payload(std::span<const std::byte> payload,
                                                   std::uint64_t offset, std::string_view file);

}  // namespace arec::perf_data
