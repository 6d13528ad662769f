// The recorder's exit status is its workload's, so scripts can wrap a command in a recording.
#include <gtest/gtest.h>

#include "child_process.hpp"
#include "prerequisites.hpp"
#include "recorder.hpp"
#include "temp_dir.hpp"

namespace arec::e2e {
namespace {

TEST(RecordExitStatus, ReturnsWorkloadExitStatus) {
  if (auto why = missing_prerequisite(perf_scope::own_child)) GTEST_SKIP() << *why;
  recorder rec = recorder::from_environment();
  temp_dir dir;

  command_result failing =
      run_command(rec.command({"-o", dir.file("exit3.data"), "--", "sh", "-c", "exit 3"}));
  EXPECT_EQ(failing.exit_code, 3) << rec.describe() << ": " << failing.describe();

  command_result succeeding =
      run_command(rec.command({"-o", dir.file("exit0.data"), "--", "sh", "-c", "exit 0"}));
  EXPECT_EQ(succeeding.exit_code, 0) << rec.describe() << ": " << succeeding.describe();
}

}  // namespace
}  // namespace arec::e2e
