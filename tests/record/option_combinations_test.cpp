// option_combinations: the combinations of record options that no recording can honour are
// refused by a pure function, with the message the user sees, before anything is opened.
#include "record/option_combinations.hpp"

#include <gtest/gtest.h>

#include <string>

#include "base/usage_error.hpp"

namespace arec::record {
namespace {

// The refusal's message, or "" when the combination is taken.
std::string refusal(const record_options& options, bool to_pipe) {
  try {
    check_option_combinations(options, to_pipe);
  } catch (const base::usage_error& error) {
    return error.what();
  }
  return "";
}

record_options workload(const char* program) {
  record_options options;
  options.workload = {program};
  return options;
}

TEST(OptionCombinations, ThreadsAreRefusedInPipeModeOnly) {
  record_options options;
  options.system_wide = true;
  options.threads_spec = "cpu";
  EXPECT_EQ(refusal(options, true), "parallel streaming (--threads) is not available in pipe mode");
  EXPECT_EQ(refusal(options, false), "");
}

TEST(OptionCombinations, PerThreadWithThreadsIsRefusedWhereItRecordsTasks) {
  record_options options = workload("true");
  options.per_thread = true;
  options.threads_spec = "";
  EXPECT_EQ(refusal(options, false),
            "--per-thread option is mutually exclusive to parallel streaming mode");
  // With -a, perf takes no --per-thread: nothing conflicts.
  options.system_wide = true;
  EXPECT_EQ(refusal(options, false), "");
}

TEST(OptionCombinations, SwitchingOutputsNeedsAFile) {
  record_options options = workload("true");
  options.switch_output = record_options::output_switch{.on_signal = true};
  EXPECT_EQ(refusal(options, true),
            "--switch-output and --timestamp-filename are not available in pipe mode");
  EXPECT_EQ(refusal(options, false), "");
  options.switch_output.reset();
  options.timestamp_filename = true;
  EXPECT_EQ(refusal(options, true),
            "--switch-output and --timestamp-filename are not available in pipe mode");
}

TEST(OptionCombinations, OverwriteTakesNoPipeAndNoSwitchSize) {
  record_options options = workload("true");
  options.attrs.overwrite = true;
  EXPECT_EQ(refusal(options, true),
            "--overwrite is not available in pipe mode: its snapshots are files of their own");
  options.switch_output = record_options::output_switch{.size = 1 << 20};
  EXPECT_EQ(refusal(options, false),
            "--switch-output=SIZE is not available with --overwrite: nothing is written between "
            "snapshots; use --switch-output (SIGUSR2) or --switch-output=TIME");
  options.switch_output = record_options::output_switch{.on_signal = true};
  EXPECT_EQ(refusal(options, false), "");
}

TEST(OptionCombinations, OffCpuIsRefusedWithOverwrite) {
  record_options options = workload("true");
  options.attrs.off_cpu = true;
  EXPECT_EQ(refusal(options, false), "");
  options.attrs.overwrite = true;
  EXPECT_EQ(refusal(options, false),
            "--off-cpu is not available with --overwrite: off-CPU time is made from the switches "
            "as they are drained, and an overwritable ring is drained only at its snapshots");
}

TEST(OptionCombinations, TasksAreRecordedForAWorkloadOrNamedTargetsNotForCpus) {
  EXPECT_TRUE(records_per_task(workload("true")));
  record_options system_wide = workload("true");
  system_wide.system_wide = true;
  EXPECT_FALSE(records_per_task(system_wide));
  record_options cpus = workload("true");
  cpus.cpus = {0};
  EXPECT_FALSE(records_per_task(cpus));
  record_options pid;
  pid.pids = {1};
  pid.system_wide = true;  // -p wins over -a, as in perf
  EXPECT_TRUE(names_targets(pid));
  EXPECT_TRUE(records_per_task(pid));
  EXPECT_FALSE(records_per_task(record_options{}));
}

}  // namespace
}  // namespace arec::record
