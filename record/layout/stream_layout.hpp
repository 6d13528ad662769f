// stream_layout: which streaming threads drain which cpus, and where each runs. Without
// --threads one unpinned thread drains every monitored cpu; with it, record/thread_masks lays
// them out from the topology.
#pragma once

#include <string>
#include <vector>

#include "record/record_options.hpp"
#include "record/layout/thread_masks.hpp"

namespace arec::record {

// Throws usage_error for a --threads spec that does not fit this machine.
thread_layout plan_stream_threads(const record_options& options,
                                  const std::vector<int>& monitored_cpus,
                                  const std::vector<int>& online_cpus);

}  // namespace arec::record
