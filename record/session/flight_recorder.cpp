#include "record/session/flight_recorder.hpp"

#include "record/synthesis/target_tasks.hpp"

namespace arec::record {

std::vector<pid_t> processes_to_describe(const std::vector<pid_t>& targets,
                                         std::optional<pid_t> workload_target) {
  if (!targets.empty()) return targets;
  if (workload_target) return {*workload_target};
  return all_processes();
}

}  // namespace arec::record
