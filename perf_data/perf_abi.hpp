// The perf.data on-disk ABI as perf 6.1 reads it: file header, sections, record headers, the
// user-space record types and feature bits. Kernel-side types come from <linux/perf_event.h>.
// Facts and their evidence: docs/perf-data-format.md.
#pragma once

#include <linux/perf_event.h>

#include <cstdint>

namespace arec::perf_data {

inline constexpr std::uint64_t file_magic = 0x32454c4946524550ULL;  // "PERFILE2"
inline constexpr std::uint64_t file_header_size = 104;
// perf 6.1 rejects attrs larger than its own struct (PERF_ATTR_SIZE_VER7).
inline constexpr std::uint32_t attr_size_written = 128;
inline constexpr std::uint32_t max_record_size = 65535;

struct file_section {
  std::uint64_t offset = 0;
  std::uint64_t size = 0;
};

struct file_header {
  std::uint64_t magic = file_magic;
  std::uint64_t size = file_header_size;
  std::uint64_t attr_size = 0;
  file_section attrs;
  file_section data;
  file_section event_types;
  std::uint64_t features[4] = {};
};
static_assert(sizeof(file_header) == file_header_size);

// One entry of the attrs section: the attr truncated to attr_size_written, then its ids.
struct file_attr {
  unsigned char attr[attr_size_written];
  file_section ids;
};
static_assert(sizeof(file_attr) == attr_size_written + 16);

struct record_header {
  std::uint32_t type;
  std::uint16_t misc;
  std::uint16_t size;
};
static_assert(sizeof(record_header) == 8);

// Record types perf adds in user space (>= PERF_RECORD_USER_TYPE_START = 64).
enum user_record_type : std::uint32_t {
  record_header_attr = 64,
  record_header_tracing_data = 66,
  record_header_build_id = 67,
  record_finished_round = 68,
  record_id_index = 69,
  record_auxtrace = 71,
  record_thread_map = 73,
  record_cpu_map = 74,
  record_event_update = 78,
  record_time_conv = 79,
  record_header_feature = 80,
  record_compressed = 81,
  record_finished_init = 82,
  record_compressed2 = 83,  // perf 6.16+: docs/perf-data-format.md, "COMPRESSED2"
};

// Bits of the header's feature bitmap.
enum feature : unsigned {
  feature_tracing_data = 1,
  feature_build_id = 2,
  feature_hostname = 3,
  feature_osrelease = 4,
  feature_version = 5,
  feature_arch = 6,
  feature_nrcpus = 7,
  feature_cpudesc = 8,
  feature_cpuid = 9,
  feature_total_mem = 10,
  feature_cmdline = 11,
  feature_event_desc = 12,
  feature_cpu_topology = 13,
  feature_numa_topology = 14,
  feature_pmu_mappings = 16,
  feature_group_desc = 17,
  feature_cache = 20,
  feature_sample_time = 21,
  feature_mem_topology = 22,
  feature_clockid = 23,
  feature_dir_format = 24,
  feature_compressed = 27,
  feature_clock_data = 29,
  feature_last_known = 32,  // HEADER_LAST_FEATURE of perf 6.1
  // arec's own, far above perf's numbering: what it captured of processes while they lived.
  feature_arec_jitdumps = 253,       // perf_data/jitdumps_feature
  feature_arec_container_ids = 254,  // perf_data/container_ids_feature
  feature_arec_perf_maps = 255,      // perf_data/perf_maps_feature
};

// misc bits perf uses on records.
inline constexpr std::uint16_t misc_fork_exec = 1u << 13;  // synthesized FORK: do not clone maps
inline constexpr std::uint16_t misc_mmap_data = 1u << 13;  // MMAP2 of a non-exec mapping
inline constexpr std::uint16_t misc_build_id_size = 1u << 15;  // BUILD_ID entry has a size byte

// The version string written in the VERSION feature. hotspot trusts FINISHED_ROUND records only
// when it reads a version >= 3.17; arec's own version would be misread, so it writes perf's.
inline constexpr const char* compatible_perf_version = "6.1.arec";

}  // namespace arec::perf_data
