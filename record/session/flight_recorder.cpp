#include "record/session/flight_recorder.hpp"

#include "io/usage_error.hpp"
#include "record/synthesis/target_tasks.hpp"

namespace arec::record {

void check_overwrite(const record_options& options, bool to_pipe) {
  if (!options.attrs.overwrite) return;
  if (to_pipe)
    throw io::usage_error(
        "--overwrite is not available in pipe mode: its snapshots are files of their own");
  if (options.switch_output && options.switch_output->size)
    throw io::usage_error(
        "--switch-output=SIZE is not available with --overwrite: nothing is written between "
        "snapshots; use --switch-output (SIGUSR2) or --switch-output=TIME");
}

std::vector<pid_t> processes_to_describe(const std::vector<pid_t>& targets,
                                         std::optional<pid_t> workload_target) {
  if (!targets.empty()) return targets;
  if (workload_target) return {*workload_target};
  return all_processes();
}

}  // namespace arec::record
