// profile_split: a window's profile cut to what a fleet store accepts. Pyroscope refuses a
// profile with more samples or more bytes than its limits and cuts deep stacks itself; the
// exporter knows the samples, so it splits the window into several profiles of the same time
// range (a store sums them) and cuts stacks before sending, counting what it cut.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "export/profile.hpp"

namespace arec::exporting {

// 0 in a field: no limit.
struct profile_limits {
  std::size_t max_samples = 0;      // samples per profile
  std::size_t max_bytes = 0;        // encoded, uncompressed bytes per profile
  std::size_t max_stack_depth = 0;  // frames per sample
};

// Cuts every stack deeper than `max_depth` to its `max_depth` innermost frames (the leaf side,
// as perf's --max-stack does: the time is spent there). Returns the number of stacks cut.
std::uint64_t truncate_stacks(profile& p, std::size_t max_depth);

// Splits `whole` into profiles of at most `max_samples` samples each, in sample order, each
// with only the tables its samples use; the window's times and sample types are everyone's.
// `whole` itself when it is small enough.
std::vector<profile> split_samples(profile whole, std::size_t max_samples);

}  // namespace arec::exporting
