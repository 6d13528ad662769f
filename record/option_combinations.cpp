#include "record/option_combinations.hpp"

#include "base/usage_error.hpp"

namespace arec::record {
namespace {

// A pipe has no file to rename; with --threads each rotation is a whole data directory.
void check_output_switching(const record_options& options, bool to_pipe) {
  bool rotation = options.switch_output || options.timestamp_filename;
  if (rotation && to_pipe)
    throw base::usage_error(
        "--switch-output and --timestamp-filename are not available in pipe mode");
}

// --overwrite: a snapshot is a file, and nothing is written between snapshots, so a size would
// only count the snapshots themselves (perf 6.1 then dumps in a chain).
void check_overwrite(const record_options& options, bool to_pipe) {
  if (!options.attrs.overwrite) return;
  if (to_pipe)
    throw base::usage_error(
        "--overwrite is not available in pipe mode: its snapshots are files of their own");
  if (options.switch_output && options.switch_output->size)
    throw base::usage_error(
        "--switch-output=SIZE is not available with --overwrite: nothing is written between "
        "snapshots; use --switch-output (SIGUSR2) or --switch-output=TIME");
}

// --off-cpu makes its samples from the switches as they are drained; an overwritable ring is
// drained only at snapshots, whose records are no longer in order with the rest.
void check_off_cpu(const record_options& options) {
  if (options.attrs.off_cpu && options.attrs.overwrite)
    throw base::usage_error(
        "--off-cpu is not available with --overwrite: off-CPU time is made from the switches "
        "as they are drained, and an overwritable ring is drained only at its snapshots");
}

}  // namespace

bool names_targets(const record_options& options) {
  return !options.pids.empty() || !options.tids.empty() || options.user.has_value();
}

bool records_per_task(const record_options& options) {
  return names_targets(options) ||
         (!options.workload.empty() && !options.system_wide && options.cpus.empty());
}

void check_option_combinations(const record_options& options, bool to_pipe) {
  bool directory = options.threads_spec.has_value();
  if (to_pipe && directory)
    throw base::usage_error("parallel streaming (--threads) is not available in pipe mode");
  // --per-thread counts where perf takes it: for tasks, not with -a or -C.
  if (options.per_thread && records_per_task(options) && directory)
    throw base::usage_error("--per-thread option is mutually exclusive to parallel streaming mode");
  check_output_switching(options, to_pipe);
  check_overwrite(options, to_pipe);
  check_off_cpu(options);
}

}  // namespace arec::record
