// profile_split: a window's profile cut to what a fleet store accepts. Pyroscope refuses a
// profile with more samples or more bytes than its limits and cuts deep stacks itself; the
// exporter knows the samples, so it splits the window into several profiles of the same time
// range (a store sums them) and cuts stacks before sending, counting what it cut.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
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

// One process's samples of a window, and the series labels that name it.
struct process_samples {
  std::vector<std::pair<std::string, std::string>> labels;  // pid, comm, container_id if known
  std::vector<profile_sample> samples;
};

// Moves `whole`'s samples into groups by their pid and comm labels (a process that execs within
// the window is two groups), in the order the processes first appear; `whole` keeps its tables.
// For a store that keeps series labels but not the pprof's own (Parca): one series per process
// keeps them apart there. Each group becomes a profile with with_samples(), one at a time.
std::vector<process_samples> group_by_process(profile& whole);

// A profile of `tables`' times, types and tables with `samples`, keeping only the tables they
// use (keep_only_referenced).
profile with_samples(const profile& tables, std::vector<profile_sample> samples);

}  // namespace arec::exporting
