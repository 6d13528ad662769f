// host_features: the feature payloads that describe the recording machine (names, CPUs,
// memory, topology), read from uname, /proc and sysfs the way perf 6.1 reads them.
// Payload layouts: docs/perf-data-format.md, "Feature bits".
#pragma once

#include <string_view>

#include "perf_data/feature_encoder.hpp"

namespace arec::host {

// Adds HOSTNAME, OSRELEASE, ARCH (uname), VERSION (compatible_perf_version), NRCPUS
// (max present CPU + 1, online count), CPUDESC (cpuinfo "model name", whitespace squashed),
// CPUID (x86: "vendor,family,model,stepping"), TOTAL_MEM (MemTotal in kB), CPU_TOPOLOGY
// (package, core, per-CPU ids, and the die part on x86_64/s390x when sysfs has it),
// NUMA_TOPOLOGY, PMU_MAPPINGS (bus/event_source/devices in directory order), CACHE (the
// distinct cpuN/cache/indexM of the possible CPUs, by level; empty without cache directories)
// and MEM_TOPOLOGY (memory blocks per node, memory/block_size_bytes). A feature whose source
// is missing (no "model name", no node directory, a non-x86 cpuinfo for CPUID, an unreadable
// cache attribute, no block_size_bytes) is left out rather than written wrong. The roots are
// parameters so that tests can point them at a fabricated tree. Throws std::system_error when
// uname fails.
void add_host_features(perf_data::feature_set& features, std::string_view sysfs_root = "/sys",
                       std::string_view proc_root = "/proc");

}  // namespace arec::host
