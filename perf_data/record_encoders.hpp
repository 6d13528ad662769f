// record_encoders: the side-band records arec writes itself (COMM, FORK, MMAP, MMAP2, CGROUP),
// built byte for byte as the kernel lays them out, each with a zero sample_id trailer. Layouts:
// docs/perf-data-format.md, "Kernel record bodies" and "sample_id trailer".
#pragma once

#include <linux/limits.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

#include "perf_data/mapping_record.hpp"

namespace arec::perf_data {

// Each encoder builds one record in `out` and returns the bytes written.

// MMAP2 misc bit perf sets when reading /proc/PID/maps took too long (the maps are partial).
inline constexpr std::uint16_t misc_proc_map_parse_timeout = 1u << 12;
// The names perf gives a mapping whose path is too long, and anonymous memory.
inline constexpr std::string_view too_long_name = "//toolong";
inline constexpr std::string_view anonymous_name = "//anon";

inline constexpr std::size_t max_sample_id_size = 48;  // TID+TIME+ID+STREAM_ID+CPU+IDENTIFIER
// Room for the largest record built here: MMAP2 fields (72) + PATH_MAX name + trailer.
using record_buffer = std::array<std::byte, 72 + PATH_MAX + max_sample_id_size>;

// Throws std::invalid_argument unless `size` is a multiple of 8 of at most max_sample_id_size.
void check_sample_id_size(std::size_t size);

// Strings are NUL-terminated and zero-padded to 8 bytes; the trailer is sample_id_size zero
// bytes. A comm is cut to 15 bytes; a file name of PATH_MAX bytes or more becomes "//toolong".
// Throw std::invalid_argument when sample_id_size is not a multiple of 8 or exceeds 48.
std::span<const std::byte> encode_comm(record_buffer& out, std::uint32_t pid, std::uint32_t tid,
                                       std::string_view comm, std::size_t sample_id_size);
std::span<const std::byte> encode_fork(record_buffer& out, std::uint32_t pid, std::uint32_t ppid,
                                       std::uint32_t tid, std::uint32_t ptid,
                                       std::size_t sample_id_size);
// MMAP carries `fields` up to pgoff, and the name; MMAP2 also the file's identity (with
// PERF_RECORD_MISC_MMAP_BUILD_ID in misc, the build-id in its place), prot and flags.
std::span<const std::byte> encode_mmap(record_buffer& out, const mapping_record& fields,
                                       std::size_t sample_id_size);
std::span<const std::byte> encode_mmap2(record_buffer& out, const mapping_record& fields,
                                        std::size_t sample_id_size);
// A cgroup that existed before recording (--all-cgroups): its id (the kernel's, as samples'
// PERF_SAMPLE_CGROUP carry it) and its path below the cgroup mount ("/" for the root). A path
// of PATH_MAX bytes or more throws std::invalid_argument.
std::span<const std::byte> encode_cgroup(record_buffer& out, std::uint64_t id,
                                         std::string_view path, std::size_t sample_id_size);

}  // namespace arec::perf_data
