// The --threads layout: which CPUs' ring buffers each streaming thread drains and which CPUs it
// runs on, built from a spec word (cpu, core, package/socket, numa) or user masks.
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "record/layout/topology.hpp"

namespace arec::record {

struct stream_thread_mask {
  std::vector<int> cpus;      // ascending, non-empty: the ring buffers this thread drains
  std::vector<int> affinity;  // ascending, non-empty, online: where the thread may run
};

struct thread_layout {
  std::vector<stream_thread_mask> threads;  // thread i is streaming thread i
  std::vector<std::string> dropped;         // one human note per unit or mask left without cpus
};

// Builds the layout for `--threads=SPEC`. SPEC is empty (= cpu), a case-insensitive prefix of
// cpu, core, package, socket or numa (tried in that order, so "c" is cpu), or user masks
// CPUS/AFFINITY[:CPUS/AFFINITY...]. Each thread drains its unit's (or mask's) CPUs that are in
// `monitored_cpus` (online CPUs, any order); a unit or mask left with none is dropped and noted.
// A topology unit's affinity is all its online CPUs; a user mask's affinity is as written.
// Topology threads are ordered by lowest drained CPU, user masks as written.
// Throws std::invalid_argument with a one-line message naming the bad part: unknown word,
// malformed mask, missing /AFFINITY, absent or offline CPU in either half or in
// `monitored_cpus`, overlapping CPUS halves, an empty affinity, or no thread left.
thread_layout build_thread_layout(std::string_view spec, std::span<const int> monitored_cpus,
                                  const cpu_topology& topology);

// The --dry-run text: "thread N: cpus=LIST affinity=LIST\n" per thread, lists canonical.
std::string format_thread_layout(const thread_layout& layout);

}  // namespace arec::record
