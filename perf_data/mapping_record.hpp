// mapping_record: the fields of an MMAP or MMAP2 record, as every reader (the model's side band,
// convert's build-ids) gets them and every writer (synthesis, the known tasks of a rotated file)
// gives them to record_encoders. Layouts: docs/perf-data-format.md, "MMAP2".
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

#include "perf_data/build_id.hpp"
#include "perf_data/perf_abi.hpp"

namespace arec::perf_data {

struct mapping_record {
  // The header's: the cpumode (PERF_RECORD_MISC_USER, _KERNEL), and for MMAP2
  // PERF_RECORD_MISC_MMAP_BUILD_ID when `id` stands in the record for the file's identity.
  std::uint16_t misc = 0;
  std::int32_t pid = 0;  // -1: the kernel's address space
  std::int32_t tid = 0;
  std::uint64_t start = 0;
  std::uint64_t len = 0;
  std::uint64_t pgoff = 0;
  // MMAP2: the file's identity, or with PERF_RECORD_MISC_MMAP_BUILD_ID its build-id instead.
  std::uint32_t major = 0;
  std::uint32_t minor = 0;
  std::uint64_t inode = 0;
  std::uint64_t inode_generation = 0;
  build_id id;
  std::uint32_t prot = 0;
  std::uint32_t flags = 0;
  std::string_view name;  // read: views the record
};

// The MMAP or MMAP2 record `record` (header included, cut to its size) is; nullopt for another
// type or a record too short for its fields.
std::optional<mapping_record> parse_mapping_record(std::span<const std::byte> record);

}  // namespace arec::perf_data
