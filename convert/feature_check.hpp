// feature_check: whether perf 6.1 reads a header feature's payload without overrunning or
// crashing. perf reads a feature by the counts and lengths inside it, not by its section's size:
// a count one byte off makes it read past the section, keep a count with no table behind it
// (PMU_MAPPINGS: perf report SIGSEGVs) or size an allocation that overflows (MEM_TOPOLOGY's
// bitmaps). A payload passes when everything perf 6.1's process_* function would read lies
// inside it, its strings end with a NUL inside their length, and the values perf uses as array
// sizes or indexes agree with the recording. Layouts: docs/perf-data-format.md, "Feature
// payload encoding"; the rules: docs/convert.md, "What perf reads".
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

#include "perf_data/feature_encoder.hpp"

namespace arec::convert {

// What a feature's payload is checked against: the recording around it.
struct feature_context {
  std::size_t attrs = 0;         // the attrs GROUP_DESC indexes
  std::uint32_t cpus_avail = 0;  // NRCPUS' available CPUs (kept), CPU_TOPOLOGY's per-CPU arrays
};

// The context of a recording with `features` and `attrs` attrs: NRCPUS' available CPUs when
// NRCPUS itself passes feature_problem, else 0 (as perf without NRCPUS).
feature_context feature_context_of(const perf_data::feature_set& features, std::size_t attrs);

// What perf 6.1 cannot read in the payload of feature `bit`, "byte N of the X feature: PROBLEM",
// or an empty string. Features perf 6.1 does not parse (BRANCH_STACK, STAT, bits from 32 on)
// always pass.
std::string feature_problem(perf_data::feature bit, std::span<const std::byte> payload,
                            const feature_context& context = {});

}  // namespace arec::convert
