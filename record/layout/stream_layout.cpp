#include "record/layout/stream_layout.hpp"

#include <stdexcept>

#include "base/usage_error.hpp"
#include "record/layout/topology.hpp"

namespace arec::record {

thread_layout plan_stream_threads(const record_options& options,
                                  const std::vector<int>& monitored_cpus,
                                  const std::vector<int>& online_cpus) {
  if (!options.threads_spec) {
    // One thread may run anywhere: the whole machine is its affinity.
    return thread_layout{{stream_thread_mask{monitored_cpus, online_cpus}}, {}};
  }
  try {
    return build_thread_layout(*options.threads_spec, monitored_cpus,
                               read_cpu_topology(sysfs_root()));
  } catch (const std::invalid_argument& error) {
    throw base::usage_error(error.what());
  }
}

}  // namespace arec::record
